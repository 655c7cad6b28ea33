// src/db/competitions.ts on PostgreSQL.
import { DEFAULT_FINAL_STAGES } from '../../scoring/stages.js';
import type { Stage } from '../../scoring/types.js';
import { DEFAULT_TOKEN_WEIGHTS } from '../../scoring/weightedTokens.js';
import { allowList, type CompetitionSettings, type CompetitionUpsert } from '../competitions.js';
import { NOW_TEXT, type PgContext } from './context.js';
import { rebuildAggregates } from './aggregates.js';

interface Row {
  id: string;
  name: string;
  weight_input: number;
  weight_cached_input: number;
  weight_output: number;
  burn_ratio: number;
  judge_votes: number;
  final_stages: string;
  reveal_answers: boolean;
  allowed_validators: string | null;
  created_at: string;
  updated_at: string;
}

/** src/db/competitions.ts toSettings: the same object, key for key. */
const toSettings = (r: Row, excludedValidators: string[]): CompetitionSettings => ({
  id: r.id,
  name: r.name,
  tokenWeights: { input: r.weight_input, cachedInput: r.weight_cached_input, output: r.weight_output },
  burnRatio: r.burn_ratio,
  judgeVotes: r.judge_votes,
  finalStages: JSON.parse(r.final_stages) as Stage[],
  revealAnswers: r.reveal_answers,
  excludedValidators,
  allowedValidators: r.allowed_validators === null ? null : (JSON.parse(r.allowed_validators) as string[]),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

// Ids compare in byte order (COLLATE "C"), as SQLite's BINARY does, whatever the database's collation.
const EXCLUDED = `SELECT competition_id, validator_id FROM competition_validators
  WHERE excluded AND ($1::text IS NULL OR competition_id = $1) ORDER BY validator_id COLLATE "C"`;

export function pgCompetitionsRepo(ctx: PgContext) {
  async function excludedByCompetition(c: PgContext, id: string | null): Promise<Map<string, string[]>> {
    const byCompetition = new Map<string, string[]>();
    for (const [competitionId, validatorId] of await c.query<[string, string]>(EXCLUDED, [id], { array: true })) {
      let list = byCompetition.get(competitionId);
      if (!list) byCompetition.set(competitionId, (list = []));
      list.push(validatorId);
    }
    return byCompetition;
  }

  async function get(c: PgContext, id: string): Promise<CompetitionSettings | null> {
    const [row] = await c.query<Row>('SELECT * FROM competitions WHERE id = $1', [id]);
    if (!row) return null;
    return toSettings(row, (await excludedByCompetition(c, id)).get(id) ?? []);
  }

  return {
    get: (id: string) => get(ctx, id),
    async list(): Promise<CompetitionSettings[]> {
      const rows = await ctx.query<Row>('SELECT * FROM competitions ORDER BY id COLLATE "C"');
      const excluded = await excludedByCompetition(ctx, null);
      return rows.map((r) => toSettings(r, excluded.get(r.id) ?? []));
    },
    async counts(id: string): Promise<{ tasks: number; miners: number; runs: number }> {
      const [row] = await ctx.query<{ tasks: number; miners: number; runs: number }>(
        `SELECT
          (SELECT count(*) FROM tasks WHERE competition_id = $1) AS tasks,
          (SELECT count(*) FROM miners WHERE competition_id = $1) AS miners,
          (SELECT coalesce(sum(runs), 0) FROM task_run_counts WHERE competition_id = $1) AS runs`,
        [id],
      );
      return row!;
    },
    async baselineTotals(id: string, stages: readonly Stage[]): Promise<{ runs: number; resolved: number }> {
      const [row] = await ctx.query<{ runs: number; resolved: number }>(
        `SELECT coalesce(sum(baseline_runs), 0) AS runs, coalesce(sum(baseline_resolved), 0) AS resolved
        FROM tasks WHERE competition_id = $1 AND stage = ANY($2::text[])`,
        [id, stages],
      );
      return row!;
    },
    /** Creates or updates atomically; fields left out keep their stored value (or the default on create). */
    upsert(id: string, input: CompetitionUpsert): Promise<{ competition: CompetitionSettings; created: boolean }> {
      return ctx.write(id, async (c) => {
        const before = await get(c, id);
        const w = input.tokenWeights ?? before?.tokenWeights ?? { ...DEFAULT_TOKEN_WEIGHTS };
        const allowed = allowList(input, before);
        const values = [
          id,
          input.name,
          w.input,
          w.cachedInput,
          w.output,
          input.burnRatio ?? before?.burnRatio ?? 0,
          input.judgeVotes ?? before?.judgeVotes ?? 5,
          JSON.stringify(input.finalStages ?? before?.finalStages ?? [...DEFAULT_FINAL_STAGES]),
          input.revealAnswers ?? before?.revealAnswers ?? false,
          allowed === null ? null : JSON.stringify(allowed),
        ];
        if (before) {
          await c.execute(
            `UPDATE competitions SET name = $2, weight_input = $3, weight_cached_input = $4, weight_output = $5,
              burn_ratio = $6, judge_votes = $7, final_stages = $8, reveal_answers = $9, allowed_validators = $10,
              updated_at = ${NOW_TEXT}
            WHERE id = $1`,
            values,
          );
          const old = before.tokenWeights;
          // Validity of a run's tokens depends on the weights, so the aggregates are rebuilt.
          if (old.input !== w.input || old.cachedInput !== w.cachedInput || old.output !== w.output) {
            await rebuildAggregates(c, id, w);
          }
        } else {
          await c.execute(
            `INSERT INTO competitions (id, name, weight_input, weight_cached_input, weight_output, burn_ratio,
              judge_votes, final_stages, reveal_answers, allowed_validators)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            values,
          );
        }
        c.emit({ competitionId: id, kind: 'settings' });
        return { competition: (await get(c, id))!, created: !before };
      });
    },
  };
}
