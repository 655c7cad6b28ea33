// src/db/competitions.ts on PostgreSQL.
import { DEFAULT_FINAL_STAGES } from '../../scoring/stages.js';
import type { Stage } from '../../scoring/types.js';
import { DEFAULT_TOKEN_WEIGHTS } from '../../scoring/weightedTokens.js';
import {
  allowList,
  DEFAULT_PLANNED_RUNS,
  toSettings,
  type CompetitionSettings,
  type CompetitionUpsert,
} from '../competitions.js';
import { NOW_TEXT, type PgContext } from './context.js';
import { rebuildAggregates } from './aggregates.js';

/** The row in the keys of SQLite's (src/db/competitions.ts), its JSON columns still text. */
interface Row {
  id: string;
  name: string;
  weightInput: number;
  weightCachedInput: number;
  weightOutput: number;
  burnRatio: number;
  judgeVotes: number;
  finalStages: string;
  revealAnswers: boolean;
  allowedValidators: string | null;
  createdAt: string;
  updatedAt: string;
  plannedRuns: number;
  minValidatorVersion: string | null;
}

const COLUMNS = `id, name, weight_input AS "weightInput", weight_cached_input AS "weightCachedInput",
  weight_output AS "weightOutput", burn_ratio AS "burnRatio", judge_votes AS "judgeVotes",
  final_stages AS "finalStages", reveal_answers AS "revealAnswers", allowed_validators AS "allowedValidators",
  created_at AS "createdAt", updated_at AS "updatedAt", planned_runs AS "plannedRuns",
  min_validator_version AS "minValidatorVersion"`;

const settingsOf = (r: Row, excludedValidators: string[]): CompetitionSettings =>
  toSettings(
    {
      ...r,
      finalStages: JSON.parse(r.finalStages) as string[],
      allowedValidators: r.allowedValidators === null ? null : (JSON.parse(r.allowedValidators) as string[]),
    },
    excludedValidators,
  );

// Ids compare in byte order (COLLATE "C"), as SQLite's BINARY does, whatever the database's collation.
const EXCLUDED = `SELECT competition_id, validator_id FROM competition_validators
  WHERE excluded AND ($1::text IS NULL OR competition_id = $1) ORDER BY validator_id COLLATE "C"`;

/** A competition with its excluded validators (EXCLUDED's order). */
const GET = `SELECT ${COLUMNS}, ARRAY(SELECT validator_id FROM competition_validators
    WHERE competition_id = competitions.id AND excluded ORDER BY validator_id COLLATE "C") AS excluded
  FROM competitions WHERE id = $1`;

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
    // One statement: every write reads its competition inside its turn, where each round trip counts.
    const [row] = await c.query<Row & { excluded: string[] }>(GET, [id], { name: 'pg_competitions_get' });
    return row ? settingsOf(row, row.excluded) : null;
  }

  return {
    get: (id: string) => get(ctx, id),
    async list(): Promise<CompetitionSettings[]> {
      const rows = await ctx.query<Row>(`SELECT ${COLUMNS} FROM competitions ORDER BY id COLLATE "C"`);
      const excluded = await excludedByCompetition(ctx, null);
      return rows.map((r) => settingsOf(r, excluded.get(r.id) ?? []));
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
          input.plannedRuns ?? before?.plannedRuns ?? DEFAULT_PLANNED_RUNS,
          input.minValidatorVersion === undefined ? (before?.minValidatorVersion ?? null) : input.minValidatorVersion,
        ];
        if (before) {
          await c.execute(
            `UPDATE competitions SET name = $2, weight_input = $3, weight_cached_input = $4, weight_output = $5,
              burn_ratio = $6, judge_votes = $7, final_stages = $8, reveal_answers = $9, allowed_validators = $10,
              planned_runs = $11, min_validator_version = $12, updated_at = ${NOW_TEXT}
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
              judge_votes, final_stages, reveal_answers, allowed_validators, planned_runs, min_validator_version)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
            values,
          );
        }
        c.emit({ competitionId: id, kind: 'settings' });
        return { competition: (await get(c, id))!, created: !before };
      });
    },
  };
}
