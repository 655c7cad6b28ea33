// Engine agreement for the store's repositories (test/db/pgStore/*.test.ts): the same operations
// on a real SQLite database and a real PostgreSQL one (real migrations each) must give the same
// answers from every read method, key order and all, and the same write events.
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { Store } from '../../src/db/contract.js';
import { writeListeners, type WriteEvent } from '../../src/db/events.js';
import { createPool } from '../../src/db/pg/client.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { createPgStore } from '../../src/db/pg/store.js';
import { createRepos, type Repos } from '../../src/db/repos.js';
import type { RunRecord } from '../../src/db/runs.js';
import type { TaskRecord } from '../../src/db/tasks.js';
import { DomainError } from '../../src/errors.js';
import type { CriterionGrade, Stage } from '../../src/scoring/types.js';
import type { Rng } from './prng.js';
import { createScratchDatabase, type ScratchDatabase } from './postgres.js';

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const STAGE_SETS: Stage[][] = [['evaluation'], ['screener_1', 'screener_2', 'evaluation'], []];

type Method = (...args: unknown[]) => unknown;
type Repo = Record<string, Method>;

export interface Pair {
  sq: Repos;
  pg: Store;
  sqEvents: WriteEvent[];
  pgEvents: WriteEvent[];
  /** PostgreSQL validator ids -> SQLite ones (created at random on each side). */
  ids: Map<string, string>;
}

/** What a call answered, in a form that compares across engines (times and random ids aside). */
export function norm(value: unknown, ids: Map<string, string>): unknown {
  if (value instanceof DomainError) return { error: value.kind, detail: value.detail, errors: value.errors };
  if (value instanceof Error) return { error: 'other' };
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [norm(k, ids), norm(v, ids)]) };
  if (Array.isArray(value)) return value.map((v) => norm(v, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        (k === 'keyHash' || k === 'apiKey') && v !== null ? 'secret' : norm(v, ids),
      ]),
    );
  }
  if (typeof value === 'string') return TIME.test(value) ? 'time' : (ids.get(value) ?? value);
  return value;
}

async function settle(value: unknown): Promise<unknown> {
  const v = await value;
  if (v !== null && typeof v === 'object' && Symbol.asyncIterator in v) {
    const out: unknown[] = [];
    for await (const x of v as AsyncIterable<unknown>) out.push(x);
    return out;
  }
  if (v !== null && typeof v === 'object' && 'next' in v && Symbol.iterator in v) {
    return [...(v as Iterable<unknown>)];
  }
  return v;
}

async function answer(fn: () => unknown): Promise<unknown> {
  try {
    return await settle(fn());
  } catch (err) {
    return err;
  }
}

/** Calls `repo.method(...args)` on both engines and expects the same answer and the same events. */
export async function both(p: Pair, path: string, ...args: unknown[]): Promise<unknown> {
  const [repo, method] = path.split('.') as [string, string];
  const call = (engine: object) => {
    const r = (engine as unknown as Record<string, Repo>)[repo]!;
    return r[method]!.call(r, ...args);
  };
  const a = norm(await answer(() => call(p.sq)), new Map());
  const b = norm(await answer(() => call(p.pg)), p.ids);
  expect(b, path).toStrictEqual(a);
  // Key order too: the objects must serialize to the same bytes.
  expect(JSON.stringify(b), path).toBe(JSON.stringify(a));
  expect(p.pgEvents, `${path}: events`).toStrictEqual(p.sqEvents);
  p.sqEvents.length = 0;
  p.pgEvents.length = 0;
  return a;
}

/** Every read method, with arguments taken from what SQLite holds. */
export async function compareAll(p: Pair, competitionIds: string[], rng?: Rng): Promise<void> {
  await both(p, 'competitions.list');
  await both(p, 'snapshots.runSeq');
  await both(p, 'exports.runSeq');
  const upTo = p.sq.snapshots.runSeq();
  await both(p, 'audit.list', { limit: 1000 });
  await both(p, 'audit.list', { competitionId: competitionIds[0], after: 1, limit: 3 });
  for (const c of [...competitionIds, 'nope']) {
    await both(p, 'competitions.get', c);
    await both(p, 'competitions.counts', c);
    for (const stages of STAGE_SETS) {
      await both(p, 'competitions.baselineTotals', c, stages);
      await both(p, 'validators.pairRuns', c, stages);
    }
    await both(p, 'validators.standings', c);
    await both(p, 'tasks.list', c);
    await both(p, 'tasks.criteriaCounts', c);
    const tasks = p.sq.tasks.list(c).map((t) => t.id);
    for (const t of [...tasks, 'missing']) {
      await both(p, 'tasks.get', c, t);
      await both(p, 'tasks.criteria', c, t);
    }
    await both(p, 'tasks.rubrics', c, ['missing', ...tasks.reverse(), 'other']);
    const miners = p.sq.miners.list(c).map((m) => m.hotkey);
    await both(p, 'miners.list', c);
    for (const h of [...miners, 'nobody']) await both(p, 'miners.get', c, h);
    const settings = p.sq.competitions.get(c);
    const w = settings?.tokenWeights ?? { input: 1, cachedInput: 0.1, output: 3 };
    await both(p, 'scoringInput.load', c, w);
    for (const h of [...miners, 'nobody']) await both(p, 'scoringInput.minerInput', c, h, w);

    const runs = p.sq.runs.list(c, { limit: 100_000 });
    await both(p, 'runs.list', c, { limit: 100_000 });
    const someRuns = rng ? runs.filter(() => rng.chance(0.05)) : runs.slice(0, 20);
    for (const r of someRuns) await both(p, 'runs.get', c, r.runId);
    await both(p, 'runs.get', c, 'missing');
    const ids = someRuns.map((r) => r.runId);
    await both(p, 'runs.existing', c, ['missing', ...ids, ...ids.slice(0, 2)]);
    const mid = runs[Math.floor(runs.length / 2)]?.seq ?? 0;
    await both(p, 'runs.list', c, { after: mid, limit: 5 });
    await both(p, 'runs.list', c, { validatorId: 'val-a', limit: 1000 });
    await both(p, 'runs.list', c, { minerHotkey: miners[0] ?? 'x', kind: 'miner', limit: 1000 });
    await both(p, 'runs.list', c, { taskId: tasks[0] ?? 'x', limit: 1000 });
    await both(p, 'runs.list', c, { kind: 'baseline', limit: 1000 });

    await both(p, 'snapshots.lastDeletedSeq', c);
    await both(p, 'snapshots.countedRuns', c);
    for (const at of [0, mid, upTo]) {
      for (const excluded of [[], ['val-a', 'val-x']]) {
        await both(p, 'snapshots.inputRuns', c, at, excluded);
      }
    }
    await both(p, 'snapshots.latest', c);
    await both(p, 'snapshots.get', c, 1);
    await both(p, 'snapshots.heads', c, 0, 100);
    await both(p, 'snapshots.heads', c, 1, 1);
    await both(p, 'snapshots.weightsHistory', c, 0, 100);
    for (const h of [...miners.slice(0, 2), 'nobody']) await both(p, 'snapshots.minerHistory', c, h, 0, 100);

    for (let after = 0; ;) {
      const page = (await both(p, 'exports.runPage', c, after, upTo, 700)) as [number][];
      if (page.length < 700) break;
      after = page[page.length - 1]![0];
    }
    await both(p, 'exports.runPage', c, 3, mid, 10);
    await both(p, 'exports.taskPage', c, '', 3);
    await both(p, 'exports.taskPage', c, 'a', 100);
    await both(p, 'exports.criteria', c, '', '~');
    await both(p, 'exports.criteria', c, 'a', 'q');
  }
}

export const qna = (n: number) => ({
  // Keys in an order of their own: the stored JSON keeps the order written.
  repositoryUrl: `https://example.com/r${n}`,
  prompt: `What does module ${n} do? "quoted" \\ and ünïcode`,
  referenceAnswer: `It does ${n}.`,
  repositoryBaseCommit: 'abc123',
  language: 'ts',
  category: 'arch',
  dockerImage: 'img:1',
});
export const rubric = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `crit-${i}`,
    title: `Criterion ${i}`,
    type: i % 3 === 2 ? ('negative' as const) : ('positive' as const),
    importance: i === 0 ? 'must' : 'nice',
    originalTitle: `Original ${i}`,
    change: i === 1 ? 'reworded' : null,
  }));
export const sweTask = (id: string, stage: Stage = 'evaluation'): TaskRecord => ({
  id,
  type: 'swebench_verified',
  stage,
  complexity: 'short',
  plannedRuns: 5,
  qna: null,
  rubric: [],
});
export const qnaTask = (id: string, n: number, criteria = 3): TaskRecord => ({
  id,
  type: 'swe_atlas_qna',
  stage: 'evaluation',
  complexity: null,
  plannedRuns: null,
  qna: qna(n),
  rubric: rubric(criteria),
});

export interface RunSpec {
  runId: string;
  taskId: string;
  hotkey?: string | null;
  validatorId?: string | null;
  resolved?: boolean;
  tokens?: RunRecord['tokens'];
  criteria?: number;
}
export function run(competitionId: string, s: RunSpec): RunRecord {
  const grades: CriterionGrade[] | null = s.criteria
    ? Array.from({ length: s.criteria }, (_, i) => ({
        criterionId: `crit-${i}`,
        yes: 2,
        no: 1,
        verdict: 'YES',
        met: i % 2 === 0,
        split: i === 1,
      }))
    : null;
  return {
    competitionId,
    runId: s.runId,
    taskId: s.taskId,
    kind: s.hotkey === null ? 'baseline' : 'miner',
    minerHotkey: s.hotkey === undefined ? 'hk-1' : s.hotkey,
    validatorId: s.validatorId === undefined ? 'val-a' : s.validatorId,
    attemptNo: 1,
    resolved: s.resolved ?? false,
    tokens: s.tokens === undefined ? { input: 1000, cachedInput: 10, output: 200 } : s.tokens,
    timeTakenSeconds: 12.25,
    agentSteps: 7,
    rubricVotes: grades
      ? grades.map((g) => ({ criterionId: g.criterionId, votes: [{ verdict: 'YES', reason: 'because "x"' }] }))
      : null,
    criteria: grades,
  };
}

/**
 * Registers a scratch PostgreSQL database for the enclosing describe block (text sorted by locale,
 * not by bytes: every order the store gives must still be SQLite's) and answers a function that
 * makes a fresh pair: both engines empty, sequences at their start, a fresh store (its scoring
 * mirrors empty). Every table of the schema is emptied, whichever tables a migration adds.
 */
export function enginePairs(label: string): () => Promise<Pair> {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase(label, { icuLocale: 'en-US' });
    await migratePostgres(scratch.url);
    pool = createPool(scratch.url, { max: 12 });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });
  return async () => {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    await pool.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY`);
    const db = openDatabase(':memory:');
    const p: Pair = { sq: createRepos(db), pg: createPgStore(pool), sqEvents: [], pgEvents: [], ids: new Map() };
    writeListeners(db).add((e) => p.sqEvents.push(e));
    p.pg.listeners.add((e) => p.pgEvents.push(e));
    return p;
  };
}
