// The PostgreSQL store (src/db/pg/store.ts) against the SQLite repositories (src/db/*.ts), which
// are the contract: the same operations on a real SQLite database (real migrations) and a real
// PostgreSQL one (real migrations) must give the same answers from every read method, key order
// and all, and the same write events. Then what only PostgreSQL has: transactions on a pool
// (rollback, events after commit, a competition's writers taking turns), and the CHECK that keeps
// token sums exact giving SQLite's 422.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { writeListeners, type WriteEvent } from '../../src/db/events.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { createPool } from '../../src/db/pg/client.js';
import { createPgStore } from '../../src/db/pg/store.js';
import { createRepos, type Repos } from '../../src/db/repos.js';
import type { RunRecord, StoredRun } from '../../src/db/runs.js';
import type { Store } from '../../src/db/contract.js';
import type { TaskRecord } from '../../src/db/tasks.js';
import { DomainError } from '../../src/errors.js';
import type { CriterionGrade, Stage, TokenWeights } from '../../src/scoring/types.js';
import { prng, type Rng } from '../support/prng.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgStore.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MAX = Number.MAX_SAFE_INTEGER;
const STAGE_SETS: Stage[][] = [['evaluation'], ['screener_1', 'screener_2', 'evaluation'], []];

type Method = (...args: unknown[]) => unknown;
type Repo = Record<string, Method>;

interface Pair {
  sq: Repos;
  pg: Store;
  sqEvents: WriteEvent[];
  pgEvents: WriteEvent[];
  /** PostgreSQL validator ids -> SQLite ones (created at random on each side). */
  ids: Map<string, string>;
}

/** What a call answered, in a form that compares across engines (times and random ids aside). */
function norm(value: unknown, ids: Map<string, string>): unknown {
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
async function both(p: Pair, path: string, ...args: unknown[]): Promise<unknown> {
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
async function compareAll(p: Pair, competitionIds: string[], rng?: Rng): Promise<void> {
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

    for (const at of [0, mid, upTo]) {
      for (const excluded of [[], ['val-a', 'val-x']]) {
        await both(p, 'snapshots.inputRuns', c, at, excluded);
      }
    }
    await both(p, 'snapshots.latest', c);
    await both(p, 'snapshots.get', c, 1);
    await both(p, 'snapshots.list', c, 0, 100);
    await both(p, 'snapshots.list', c, 1, 1);

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

const qna = (n: number) => ({
  // Keys in an order of their own: the stored JSON keeps the order written.
  repositoryUrl: `https://example.com/r${n}`,
  prompt: `What does module ${n} do? "quoted" \\ and ünïcode`,
  referenceAnswer: `It does ${n}.`,
  repositoryBaseCommit: 'abc123',
  language: 'ts',
  category: 'arch',
  dockerImage: 'img:1',
});
const rubric = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `crit-${i}`,
    title: `Criterion ${i}`,
    type: i % 3 === 2 ? ('negative' as const) : ('positive' as const),
    importance: i === 0 ? 'must' : 'nice',
    originalTitle: `Original ${i}`,
    change: i === 1 ? 'reworded' : null,
  }));
const sweTask = (id: string, stage: Stage = 'evaluation'): TaskRecord => ({
  id,
  type: 'swebench_verified',
  stage,
  complexity: 'short',
  plannedRuns: 5,
  qna: null,
  rubric: [],
});
const qnaTask = (id: string, n: number, criteria = 3): TaskRecord => ({
  id,
  type: 'swe_atlas_qna',
  stage: 'evaluation',
  complexity: null,
  plannedRuns: null,
  qna: qna(n),
  rubric: rubric(criteria),
});

interface RunSpec {
  runId: string;
  taskId: string;
  hotkey?: string | null;
  validatorId?: string | null;
  resolved?: boolean;
  tokens?: RunRecord['tokens'];
  criteria?: number;
}
function run(competitionId: string, s: RunSpec): RunRecord {
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

describe.runIf(server.available)('PostgreSQL store: the same answers as SQLite', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    // Text sorts by locale here, not by bytes: every order the store gives must still be SQLite's.
    scratch = await createScratchDatabase('pg_store', { icuLocale: 'en-US' });
    await migratePostgres(scratch.url);
    pool = createPool(scratch.url, { max: 12 });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  /** Both engines empty, sequences at their start; a fresh store (its scoring mirrors empty). */
  async function freshPair(): Promise<Pair> {
    await pool.query(`TRUNCATE competitions, tasks, task_run_counts, task_criteria, validators, miners, runs,
      deleted_runs, miner_tasks, competition_validators, signature_nonces, audit_log, snapshots, competition_versions, metagraphs, judges
      RESTART IDENTITY`);
    const db = openDatabase(':memory:');
    const p: Pair = { sq: createRepos(db), pg: createPgStore(pool), sqEvents: [], pgEvents: [], ids: new Map() };
    writeListeners(db).add((e) => p.sqEvents.push(e));
    p.pg.listeners.add((e) => p.pgEvents.push(e));
    return p;
  }

  it('a scripted history: competitions, tasks, QnA rubrics, runs, exclusions, deletions, weights, snapshots', async () => {
    const p = await freshPair();
    const c = 'c1';
    await both(p, 'competitions.upsert', c, { name: 'One' });
    await both(p, 'competitions.upsert', 'c2', {
      name: 'Two',
      tokenWeights: { input: 2, cachedInput: 0.5, output: 1 },
      burnRatio: 0.25,
      judgeVotes: 3,
      finalStages: ['evaluation'],
      revealAnswers: true,
    });
    await both(p, 'competitions.upsert', c, { name: 'One again', burnRatio: 0.1 });
    // 'T-b' sorts before 'a-...' in byte order, after it in most locales' collations.
    await both(p, 'tasks.upsertMany', c, [
      sweTask('t-a', 'screener_1'),
      sweTask('T-b'),
      qnaTask('q.1', 1),
      sweTask('t-a', 'screener_2'),
      qnaTask('q:2', 2, 2),
    ]);
    await both(p, 'tasks.upsertMany', c, [sweTask('t-a', 'screener_2'), { ...qnaTask('q.1', 1), keepContent: true }]);
    await both(p, 'tasks.upsertMany', c, [
      { ...qnaTask('q:2', 9, 4), stage: 'screener_2' },
      { ...qnaTask('q.1', 5), qna: null, rubric: [], keepContent: true },
    ]);
    await both(p, 'tasks.upsertMany', 'c2', [sweTask('z'), qnaTask('a', 3)]);
    await compareAll(p, [c, 'c2']);

    await both(p, 'validators.setExcluded', c, 'val-x', true, 'bad');
    await both(p, 'validators.setExcluded', c, 'val-x', true, 'still bad');
    const excluded = new Set(['val-x']);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const batch1 = [
      run(c, { runId: 'r-1', taskId: 't-a' }),
      run(c, { runId: 'R-2', taskId: 't-a', hotkey: 'HK-0', resolved: true }),
      run(c, { runId: 'r-3', taskId: 'T-b', hotkey: null, resolved: true }),
      run(c, { runId: 'r-4', taskId: 'T-b', hotkey: null, resolved: false, tokens: null }),
      run(c, { runId: 'r-5', taskId: 'q.1', criteria: 3, validatorId: 'val-b', resolved: true }),
      run(c, { runId: 'r-6', taskId: 'q.1', criteria: 3, validatorId: 'val-x', hotkey: 'hk-only-excluded' }),
      run(c, { runId: 'r-7', taskId: 'q:2', criteria: 2, validatorId: null, hotkey: 'hk-2' }),
      run(c, { runId: 'r-8', taskId: 't-a', tokens: { input: 5, cachedInput: null, output: 0 } }),
      run(c, { runId: 'r-9', taskId: 't-a', tokens: { input: 0, cachedInput: 0, output: 0 }, hotkey: 'hk-2' }),
      run(c, { runId: 'r-10', taskId: 'T-b', hotkey: null, tokens: { input: MAX - 1, cachedInput: 1, output: 3 } }),
    ];
    await both(p, 'runs.insertMany', batch1, w, excluded);
    await compareAll(p, [c]);

    // A resend: the stored ones are found and only the new ones go in, as the ingest does.
    const batch2 = [...batch1.slice(0, 3), run(c, { runId: 'r-11', taskId: 'q.1', criteria: 3, hotkey: 'hk-2' })];
    await both(
      p,
      'runs.existing',
      c,
      batch2.map((r) => r.runId),
    );
    await both(p, 'runs.insertMany', batch2.slice(3), w, excluded);
    const stored = (id: string) => p.sq.runs.get(c, id)!;
    await both(p, 'runs.delete', stored('r-1'), w, excluded);
    await both(p, 'runs.delete', stored('r-6'), w, excluded);
    await both(p, 'runs.delete', stored('r-5'), w, excluded);
    await both(p, 'runs.insertMany', [run(c, { runId: 'r-1', taskId: 't-a', hotkey: 'hk-3' })], w, excluded);
    await compareAll(p, [c]);

    await both(p, 'miners.setExcluded', c, 'hk-2', true, 'cheat');
    await both(p, 'miners.setExcluded', c, 'hk-new', false, null);
    await both(p, 'audit.append', {
      actor: { kind: 'admin', id: null },
      action: 'miner.include',
      competitionId: c,
      target: 'hk-new',
      summary: { z: 1, a: [true, null], s: 'x"y' },
    });
    await both(p, 'audit.append', {
      actor: { kind: 'validator', id: 'val-a' },
      action: 'run.delete',
      competitionId: null,
      target: 'r-1',
      summary: {},
    });
    // New weights: the aggregates are rebuilt; then a validator excluded and one included again.
    await both(p, 'competitions.upsert', c, {
      name: 'One',
      tokenWeights: { input: 0.7, cachedInput: 0, output: 2.9 },
    });
    await both(p, 'validators.setExcluded', c, 'val-a', true, null);
    await both(p, 'validators.setExcluded', c, 'val-x', false, null);
    const w2 = p.sq.competitions.get(c)!.tokenWeights;
    await both(p, 'aggregates.rebuild', c, w2);
    await compareAll(p, [c]);

    const snapshot = (seq: number) => ({
      competitionId: c,
      seq,
      takenAt: `2026-01-0${seq}T00:00:00.000Z`,
      runSeq: p.sq.snapshots.runSeq(),
      document: `{"seq":${seq},"é":"\\u0000"}`,
      inputHead: '{"competition":1}\n',
      hash: `h${seq}`,
    });
    await both(p, 'snapshots.insert', snapshot(1));
    await both(p, 'snapshots.insert', snapshot(2));
    await both(p, 'snapshots.insert', snapshot(2));
    await both(p, 'nonces.remember', 'pk1', 'u1', 1000);
    await both(p, 'nonces.remember', 'pk1', 'u1', 1000);
    await both(p, 'nonces.remember', 'pk1', 'u2', 3000);
    await both(p, 'nonces.prune', 2000);
    await both(p, 'nonces.remember', 'pk1', 'u1', 5000);

    // A rubric change on a task with runs is SQLite's 409, and changes nothing on either engine.
    await both(p, 'tasks.upsertMany', c, [qnaTask('fresh', 1), { ...qnaTask('q.1', 1, 2) }]);
    await compareAll(p, [c, 'c2']);
  });

  it('validators: create, list, keys, public keys, revocation', async () => {
    const p = await freshPair();
    const create = async (...args: unknown[]) => {
      const a = p.sq.validators.create(...(args as [string]));
      const b = await p.pg.validators.create(...(args as [string]));
      p.ids.set(b.validator.id, a.validator.id);
      expect(norm(b, p.ids)).toStrictEqual(norm(a, new Map()));
      // Distinct creation times, so the list order does not fall to the random ids.
      await new Promise((r) => setTimeout(r, 3));
      return { a, b };
    };
    const k1 = await create('bearer one');
    const k2 = await create('signer', { hotkey: '5Hot', publicKey: 'ab'.repeat(32) });
    await create('bearer two');
    await both(p, 'validators.list');
    await both(p, 'validators.byPublicKey', 'ab'.repeat(32));
    await both(p, 'validators.byPublicKey', 'cd'.repeat(32));
    expect(norm(await p.pg.validators.authenticate(k1.b.apiKey!), p.ids)).toStrictEqual(
      norm(p.sq.validators.authenticate(k1.a.apiKey!), new Map()),
    );
    expect(await p.pg.validators.authenticate(k1.a.apiKey!)).toBeNull();
    expect(await p.pg.validators.authenticate('swv_nope')).toBeNull();
    expect(await p.pg.validators.revoke(k1.b.validator.id)).toBe(p.sq.validators.revoke(k1.a.validator.id));
    expect(await p.pg.validators.revoke('missing')).toBe(p.sq.validators.revoke('missing'));
    expect(await p.pg.validators.authenticate(k1.b.apiKey!)).toBeNull();
    await both(p, 'validators.list');
    expect(norm(await p.pg.validators.get(k2.b.validator.id), p.ids)).toStrictEqual(
      norm(p.sq.validators.get(k2.a.validator.id), new Map()),
    );
  });

  it('a seeded random history, read back after every step', async () => {
    const p = await freshPair();
    const rng = prng(20261201);
    const competitions = ['ca', 'cb'];
    const hotkeys = ['hk-a', 'hk-b', 'HK-c', 'hk.d', 'hk:e'];
    const validatorIds = ['val-a', 'val-b', 'val-x', null];
    const taskIds = new Map<string, string[]>();
    for (const [i, c] of competitions.entries()) {
      await both(p, 'competitions.upsert', c, { name: c });
      const tasks = [
        sweTask(`s-${i}-1`),
        sweTask(`S-${i}-2`, 'screener_2'),
        qnaTask(`q-${i}-1`, i, 3),
        qnaTask(`Q-${i}`, i, 4),
      ];
      await both(p, 'tasks.upsertMany', c, tasks);
      taskIds.set(
        c,
        tasks.map((t) => t.id),
      );
    }
    const excludedOf = (c: string) => new Set(p.sq.competitions.get(c)!.excludedValidators);
    const count = () => (rng.chance(0.1) ? null : rng.chance(0.05) ? 2 ** 40 + rng.int(0, 1000) : rng.int(0, 50_000));
    let n = 0;
    for (let step = 0; step < 40; step++) {
      const c = rng.pick(competitions);
      const w = p.sq.competitions.get(c)!.tokenWeights;
      const roll = rng.next();
      if (roll < 0.5) {
        const batch = Array.from({ length: rng.int(1, 60) }, () => {
          const taskId = rng.pick(taskIds.get(c)!);
          const input = count();
          const output = count();
          return run(c, {
            runId: `${rng.pick(['r', 'R', 'x'])}-${n++}`,
            taskId,
            hotkey: rng.chance(0.25) ? null : rng.pick(hotkeys),
            validatorId: rng.pick(validatorIds),
            resolved: rng.chance(0.5),
            tokens:
              input === null || output === null
                ? null
                : { input, cachedInput: rng.chance(0.3) ? null : count(), output },
            criteria: taskId.toLowerCase().startsWith('q') && rng.chance(0.8) ? rng.int(1, 3) : 0,
          });
        });
        await both(p, 'runs.insertMany', batch, w, excludedOf(c));
      } else if (roll < 0.65) {
        const runs = p.sq.runs.list(c, { limit: 100_000 });
        if (runs.length > 0) await both(p, 'runs.delete', rng.pick<StoredRun>(runs), w, excludedOf(c));
      } else if (roll < 0.75) {
        await both(p, 'validators.setExcluded', c, rng.pick(['val-a', 'val-b', 'val-x']), rng.chance(0.5), null);
        await both(p, 'aggregates.rebuild', c, w);
      } else if (roll < 0.83) {
        const weights: TokenWeights = {
          input: rng.pick([0, 0.3, 1, 1.7]),
          cachedInput: rng.pick([0, 0.1, 0.25]),
          output: rng.pick([0, 2.9, 3]),
        };
        await both(p, 'competitions.upsert', c, { name: c, tokenWeights: weights });
      } else if (roll < 0.9) {
        await both(p, 'miners.setExcluded', c, rng.pick(hotkeys), rng.chance(0.5), rng.chance(0.5) ? 'why' : null);
      } else {
        const latest = p.sq.snapshots.latest(c);
        await both(p, 'snapshots.insert', {
          competitionId: c,
          seq: (latest?.seq ?? 0) + 1,
          takenAt: 'now',
          runSeq: p.sq.snapshots.runSeq(),
          document: '{}',
          inputHead: '',
          hash: 'h',
        });
      }
      // The scoring input every step (its in-memory mirror follows the events); the rest now and then.
      await both(p, 'scoringInput.load', c, p.sq.competitions.get(c)!.tokenWeights);
      if (step % 8 === 7) await compareAll(p, competitions, rng);
    }
    await compareAll(p, competitions, rng);
  });

  it('snapshot inputs page by run id across pages, deletions merged in', async () => {
    const p = await freshPair();
    const c = 'big';
    await both(p, 'competitions.upsert', c, { name: c });
    await both(p, 'tasks.upsertMany', c, [sweTask('t')]);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const rng = prng(7);
    const ids = Array.from({ length: 4500 }, (_, i) => `${rng.pick(['a', 'B', 'c', '0', 'Z'])}${i}`);
    for (let i = 0; i < ids.length; i += 1500) {
      await both(
        p,
        'runs.insertMany',
        ids.slice(i, i + 1500).map((runId) => run(c, { runId, taskId: 't', hotkey: rng.pick(['m1', 'm2']) })),
        w,
        new Set(),
      );
    }
    const mid = p.sq.snapshots.runSeq();
    for (const id of ids.filter(() => rng.chance(0.01)))
      await both(p, 'runs.delete', p.sq.runs.get(c, id)!, w, new Set());
    for (const at of [mid, p.sq.snapshots.runSeq()]) {
      await both(p, 'snapshots.inputRuns', c, at, []);
      await both(p, 'snapshots.inputRuns', c, at, ['val-a']);
    }
  });

  it('a token sum past 2^53 - 1 is the same 422 on both engines, and stores nothing', async () => {
    const p = await freshPair();
    const c = 'big';
    await both(p, 'competitions.upsert', c, { name: c });
    await both(p, 'tasks.upsertMany', c, [sweTask('t1'), sweTask('t2')]);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const near = { input: MAX - 10, cachedInput: 0, output: 1 };
    await both(p, 'runs.insertMany', [run(c, { runId: 'base', taskId: 't2', tokens: near })], w, new Set());
    await both(
      p,
      'runs.insertMany',
      [run(c, { runId: 'bl', taskId: 't2', hotkey: null, resolved: true, tokens: near })],
      w,
      new Set(),
    );
    const tries: RunRecord[][] = [
      // Within one batch: a new pair whose batch sum passes the bound.
      [
        run(c, { runId: 'a1', taskId: 't1', tokens: { input: MAX, cachedInput: 0, output: 1 } }),
        run(c, { runId: 'a2', taskId: 't1' }),
      ],
      // Over a stored sum: the miner's, then the baseline's; the first pair in batch order is named.
      [
        run(c, { runId: 'b0', taskId: 't1' }),
        run(c, { runId: 'b1', taskId: 't2', tokens: { input: 11, cachedInput: 0, output: 1 } }),
      ],
      [
        run(c, {
          runId: 'c1',
          taskId: 't2',
          hotkey: null,
          resolved: true,
          tokens: { input: 100, cachedInput: 0, output: 1 },
        }),
        run(c, { runId: 'c2', taskId: 't2', tokens: { input: 11, cachedInput: 0, output: 1 } }),
      ],
    ];
    for (const batch of tries) {
      const sq = (() => {
        try {
          p.sq.transaction(() => p.sq.runs.insertMany(batch, w, new Set()));
        } catch (err) {
          return err;
        }
      })();
      p.sqEvents.length = 0;
      expect(sq).toBeInstanceOf(DomainError);
      expect((sq as DomainError).kind).toBe('unprocessable');
      for (const attempt of [
        () => p.pg.runs.insertMany(batch, w, new Set()),
        () => p.pg.transaction((tx) => tx.runs.insertMany(batch, w, new Set()), { competitionId: c }),
      ]) {
        const err = await attempt().catch((e: unknown) => e);
        expect(norm(err, p.ids)).toStrictEqual(norm(sq, new Map()));
        expect(p.pgEvents).toStrictEqual([]);
      }
    }
    // Nothing of the refused batches: the reads that do not show sequence numbers (PostgreSQL's
    // sequence is not rolled back: the numbers the refused batches took are skipped).
    await both(p, 'runs.existing', c, ['a1', 'a2', 'b0', 'b1', 'c1', 'c2', 'base', 'bl']);
    await both(p, 'competitions.counts', c);
    await both(p, 'scoringInput.load', c, w);
    await both(p, 'tasks.list', c);
    await both(p, 'miners.list', c);
  });
});

describe.runIf(server.available)('PostgreSQL store: transactions', () => {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  let store: Store;
  const w: TokenWeights = { input: 1, cachedInput: 0.1, output: 3 };

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_store_tx');
    await migratePostgres(scratch.url);
    pool = createPool(scratch.url, { max: 12 });
    store = createPgStore(pool);
  });
  afterAll(async () => {
    await store?.close();
    await scratch?.drop();
  });

  async function competition(id: string, tasks = ['t']) {
    await store.competitions.upsert(id, { name: id });
    await store.tasks.upsertMany(
      id,
      tasks.map((t) => sweTask(t)),
    );
  }

  it('a rolled-back transaction stores nothing and tells nothing', async () => {
    await competition('rb');
    const told: WriteEvent[] = [];
    const listener = (e: WriteEvent) => void told.push(e);
    store.listeners.add(listener);
    const err = await store
      .transaction(
        async (tx) => {
          await tx.runs.insertMany([run('rb', { runId: 'r1', taskId: 't' })], w);
          await tx.miners.setExcluded('rb', 'hk-1', true, 'x');
          await tx.audit.append({
            actor: { kind: 'admin', id: null },
            action: 'a',
            competitionId: 'rb',
            target: 't',
            summary: {},
          });
          // Inside, the transaction sees its writes; nothing was told yet.
          expect((await tx.runs.list('rb', { limit: 10 })).map((r) => r.runId)).toEqual(['r1']);
          expect((await tx.scoringInput.load('rb', w)).minerTasks).toHaveLength(1);
          expect(told).toEqual([]);
          throw new Error('changed my mind');
        },
        { competitionId: 'rb' },
      )
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe('changed my mind');
    expect(told).toEqual([]);
    expect(await store.runs.list('rb', { limit: 10 })).toEqual([]);
    expect(await store.miners.list('rb')).toEqual([]);
    expect(await store.audit.list({ competitionId: 'rb', limit: 10 })).toEqual([]);
    expect(await store.competitions.counts('rb')).toEqual({ tasks: 1, miners: 0, runs: 0 });
    expect((await store.scoringInput.load('rb', w)).minerTasks).toEqual([]);
    // A savepoint rolls back alone; the outer transaction commits the rest.
    await store.transaction(async (tx) => {
      await tx.runs.insertMany([run('rb', { runId: 'kept', taskId: 't' })], w);
      await tx
        .transaction(async (inner) => {
          await inner.runs.insertMany([run('rb', { runId: 'dropped', taskId: 't', hotkey: 'hk-9' })], w);
          throw new Error('inner');
        })
        .catch(() => undefined);
    });
    expect((await store.runs.list('rb', { limit: 10 })).map((r) => r.runId)).toEqual(['kept']);
    expect(told).toEqual([{ competitionId: 'rb', kind: 'pair', pair: 't\u0000hk-1' }]);
    store.listeners.delete(listener);
  });

  it('events are told after the commit, in order, and a notification carries the version', async () => {
    await competition('ev', ['t1', 't2']);
    const listen = new pg.Client({ connectionString: scratch.url });
    await listen.connect();
    const notes: string[] = [];
    listen.on('notification', (m) => notes.push(m.payload ?? ''));
    await listen.query('LISTEN swe_scoring_writes');
    try {
      const told: WriteEvent[] = [];
      const listener = (e: WriteEvent) => void told.push(e);
      store.listeners.add(listener);
      let inside: WriteEvent[] = [];
      await store.transaction(
        async (tx) => {
          await tx.runs.insertMany(
            [
              run('ev', { runId: 'a', taskId: 't2', hotkey: 'm2' }),
              run('ev', { runId: 'b', taskId: 't1', hotkey: null, resolved: true }),
              run('ev', { runId: 'c', taskId: 't1', hotkey: 'm1' }),
            ],
            w,
          );
          await tx.miners.setExcluded('ev', 'm1', true, null);
          inside = [...told];
        },
        { competitionId: 'ev' },
      );
      expect(inside).toEqual([]);
      expect(told).toEqual([
        { competitionId: 'ev', kind: 'pair', pair: 't2\u0000m2' },
        { competitionId: 'ev', kind: 'tasks' },
        { competitionId: 'ev', kind: 'pair', pair: 't1\u0000m1' },
        { competitionId: 'ev', kind: 'miners' },
      ]);
      const { rows } = await pool.query<{ version: string }>(
        `SELECT version FROM competition_versions WHERE competition_id = 'ev'`,
      );
      await expect.poll(() => notes.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(notes[notes.length - 1]!)).toEqual({ competitionId: 'ev', version: Number(rows[0]!.version) });
      // The committed version is handed to onCommitted, before the events are told.
      const seen: unknown[] = [];
      const other = createPgStore(pool, {
        onCommitted: (competitionId, version) => seen.push([competitionId, version]),
      });
      other.listeners.add((e) => seen.push(e.kind));
      await other.miners.setExcluded('ev', 'm3', true, null);
      expect(seen).toEqual([['ev', Number(rows[0]!.version) + 1], 'miners']);
      store.listeners.delete(listener);
    } finally {
      await listen.end();
    }
  });

  it("a competition's transactions take turns: no lost update, sequence order is commit order", async () => {
    await competition('cc', ['t1', 't2']);
    const order: string[] = [];
    const N = 8;
    const batches = Array.from({ length: N }, (_, k) =>
      Array.from({ length: 50 }, (_, i) =>
        run('cc', {
          runId: `k${k}-${i}`,
          taskId: i % 2 ? 't1' : 't2',
          hotkey: i % 3 ? 'm1' : null,
          resolved: true,
          tokens: { input: 1000 + k, cachedInput: i, output: 7 },
        }),
      ),
    );
    await Promise.all(
      batches.map((batch, k) =>
        store.transaction(
          async (tx) => {
            order.push(`in ${k}`);
            await tx.runs.insertMany(batch, w);
            // Hold the turn a while: another writer of the competition must wait, not interleave.
            await new Promise((r) => setTimeout(r, 20));
            order.push(`out ${k}`);
          },
          { competitionId: 'cc' },
        ),
      ),
    );
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i + 1]!.slice(4)).toBe(order[i]!.slice(3));
    }
    // Each batch's numbers form one block, and the blocks follow the order of the turns.
    const runs = await store.runs.list('cc', { limit: 10_000 });
    const blocks = [...new Set(runs.map((r) => r.runId.split('-')[0]!))];
    expect(blocks).toEqual(order.filter((o) => o.startsWith('in')).map((o) => `k${o.slice(3)}`));
    // Exact sums, against SQLite given the same batches in the same order.
    const db = openDatabase(':memory:');
    const sq = createRepos(db);
    sq.competitions.upsert('cc', { name: 'cc' });
    sq.tasks.upsertMany('cc', [sweTask('t1'), sweTask('t2')]);
    for (const b of blocks) sq.runs.insertMany(batches[Number(b.slice(1))]!, w);
    expect(await store.scoringInput.load('cc', w)).toEqual(sq.scoringInput.load('cc', w));
    expect(await store.competitions.counts('cc')).toEqual(sq.competitions.counts('cc'));
  });

  it('concurrent scoring input loads share one read; a load after a commit sees it', async () => {
    await competition('si', ['t1']);
    await store.runs.insertMany([run('si', { runId: 'a', taskId: 't1', hotkey: 'm1' })], w);
    const [x, y] = await Promise.all([store.scoringInput.load('si', w), store.scoringInput.load('si', w)]);
    expect(y).toBe(x);
    const first = store.scoringInput.load('si', w);
    await store.runs.insertMany([run('si', { runId: 'b', taskId: 't1', hotkey: 'm2' })], w);
    // Started after the commit was told: not the read in flight, which may predate it.
    const second = store.scoringInput.load('si', w);
    expect((await first).minerTasks.length).toBeGreaterThanOrEqual(1);
    expect((await second).minerTasks.map((m) => m.hotkey)).toEqual(['m1', 'm2']);
    expect((await store.scoringInput.load('si', w)).minerTasks.map((m) => [m.hotkey, m.runs])).toEqual([
      ['m1', 1],
      ['m2', 1],
    ]);
  });

  it('ready: true on a migrated database, false (not thrown) where none answers', async () => {
    expect(await store.ready()).toBe(true);
    const url = new URL(scratch.url);
    url.pathname = '/swe_test_no_such_database';
    const nowhere = createPgStore(createPool(url.toString(), { connectTimeoutMs: 2000 }));
    expect(await nowhere.ready()).toBe(false);
    await nowhere.close();
  });
});
