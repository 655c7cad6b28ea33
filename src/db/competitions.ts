// Competition settings and counts.
import { eq, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { competitions } from './schema.js';
import { rebuildAggregates } from './aggregates.js';
import { emitWrite } from './events.js';
import { ascending } from '../scoring/ascending.js';
import { DEFAULT_FINAL_STAGES } from '../scoring/stages.js';
import type { Stage, TokenWeights } from '../scoring/types.js';
import { DEFAULT_TOKEN_WEIGHTS } from '../scoring/weightedTokens.js';

export interface CompetitionSettings {
  id: string;
  name: string;
  tokenWeights: TokenWeights;
  burnRatio: number;
  judgeVotes: number;
  finalStages: Stage[];
  /** Public task reads show QnA reference answers and rubrics. */
  revealAnswers: boolean;
  /** Validators whose runs take part in no score of this competition, by id, sorted. */
  excludedValidators: string[];
  /** The validators that may write to the competition, by id, sorted; null: every validator. */
  allowedValidators: string[] | null;
  createdAt: string;
  updatedAt: string;
  /** Runs planned per pair where the task names none; coverage only (SPEC 13). */
  plannedRuns: number;
  /** The oldest validator version (semver) whose writes are taken; null: any. */
  minValidatorVersion: string | null;
}

export interface CompetitionUpsert {
  name: string;
  tokenWeights?: TokenWeights;
  burnRatio?: number;
  judgeVotes?: number;
  finalStages?: Stage[];
  revealAnswers?: boolean;
  /** The allow-list: validator ids (kept sorted, each once), or null for every validator. */
  validators?: string[] | null;
  plannedRuns?: number;
  /** null lifts the requirement; left out keeps it. */
  minValidatorVersion?: string | null;
}

/** The allow-list to store: the one sent (sorted, each id once), or the stored one when none is sent. */
export const allowList = (input: CompetitionUpsert, before: CompetitionSettings | null): string[] | null =>
  input.validators === undefined
    ? (before?.allowedValidators ?? null)
    : input.validators && [...new Set(input.validators)].sort(ascending);

/** Runs planned per pair when neither the task nor the competition names a number (SPEC 13). */
export const DEFAULT_PLANNED_RUNS = 5;

/** A competition's row as both engines read it (PostgreSQL parses its JSON text columns first). */
type CompetitionColumns = Omit<typeof competitions.$inferSelect, 'finalStages' | 'allowedValidators'> & {
  finalStages: string[];
  allowedValidators: string[] | null;
};

/** The settings of a competition's row and its excluded validators, on either engine. */
export const toSettings = (r: CompetitionColumns, excludedValidators: string[]): CompetitionSettings => ({
  id: r.id,
  name: r.name,
  tokenWeights: { input: r.weightInput, cachedInput: r.weightCachedInput, output: r.weightOutput },
  burnRatio: r.burnRatio,
  judgeVotes: r.judgeVotes,
  finalStages: r.finalStages as Stage[],
  revealAnswers: r.revealAnswers,
  excludedValidators,
  allowedValidators: r.allowedValidators ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  plannedRuns: r.plannedRuns,
  minValidatorVersion: r.minValidatorVersion,
});

/** Whether two sets of token weights are the same (a change recounts every run). */
export const sameTokenWeights = (a: TokenWeights, b: TokenWeights) =>
  a.input === b.input && a.cachedInput === b.cachedInput && a.output === b.output;

export function competitionsRepo(db: Db) {
  const countsStmt = db.$client.prepare(`SELECT
      (SELECT count(*) FROM tasks WHERE competition_id = @id) AS tasks,
      (SELECT count(*) FROM miners WHERE competition_id = @id) AS miners,
      (SELECT coalesce(sum(runs), 0) FROM task_run_counts WHERE competition_id = @id) AS runs`);
  const baselineStmt = db.$client.prepare(`SELECT coalesce(sum(baseline_runs), 0) AS runs,
      coalesce(sum(baseline_resolved), 0) AS resolved
    FROM tasks WHERE competition_id = ? AND stage IN (SELECT value FROM json_each(?))`);

  const excludedStmt = db.$client
    .prepare(
      'SELECT validator_id FROM competition_validators WHERE competition_id = ? AND excluded = 1 ORDER BY validator_id',
    )
    .pluck();
  const excludedValidators = (id: string) => excludedStmt.all(id) as string[];

  // Prepared once: every run batch reads its competition, and building the query each time cost
  // more than running it.
  const getQuery = db
    .select()
    .from(competitions)
    .where(eq(competitions.id, sql.placeholder('id')))
    .prepare();

  function get(id: string): CompetitionSettings | null {
    const row = getQuery.get({ id });
    return row ? toSettings(row, excludedValidators(id)) : null;
  }

  return {
    get,
    list(): CompetitionSettings[] {
      return db
        .select()
        .from(competitions)
        .orderBy(competitions.id)
        .all()
        .map((r) => toSettings(r, excludedValidators(r.id)));
    },
    counts(id: string): { tasks: number; miners: number; runs: number } {
      return countsStmt.get({ id }) as { tasks: number; miners: number; runs: number };
    },
    /** Baseline runs and resolved runs over the tasks in the given stages, from the aggregates. */
    baselineTotals(id: string, stages: readonly Stage[]): { runs: number; resolved: number } {
      return baselineStmt.get(id, JSON.stringify(stages)) as { runs: number; resolved: number };
    },
    /** Creates or updates; fields left out keep their stored value (or the default on create). */
    upsert(id: string, input: CompetitionUpsert): { competition: CompetitionSettings; created: boolean } {
      return db.transaction((tx) => {
        const before = get(id);
        const w = input.tokenWeights ?? before?.tokenWeights ?? { ...DEFAULT_TOKEN_WEIGHTS };
        const values = {
          name: input.name,
          weightInput: w.input,
          weightCachedInput: w.cachedInput,
          weightOutput: w.output,
          burnRatio: input.burnRatio ?? before?.burnRatio ?? 0,
          judgeVotes: input.judgeVotes ?? before?.judgeVotes ?? 5,
          finalStages: input.finalStages ?? before?.finalStages ?? [...DEFAULT_FINAL_STAGES],
          revealAnswers: input.revealAnswers ?? before?.revealAnswers ?? false,
          allowedValidators: allowList(input, before),
          plannedRuns: input.plannedRuns ?? before?.plannedRuns ?? DEFAULT_PLANNED_RUNS,
          minValidatorVersion:
            input.minValidatorVersion === undefined ? (before?.minValidatorVersion ?? null) : input.minValidatorVersion,
        };
        if (before) {
          tx.update(competitions)
            .set({ ...values, updatedAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))` })
            .where(eq(competitions.id, id))
            .run();
          // Validity of a run's tokens depends on the weights, so the aggregates are rebuilt.
          if (!sameTokenWeights(before.tokenWeights, w)) rebuildAggregates(db, id, w);
        } else {
          tx.insert(competitions)
            .values({ id, ...values })
            .run();
        }
        emitWrite(db, { competitionId: id, kind: 'settings' });
        return { competition: get(id)!, created: !before };
      });
    },
  };
}
