// The in-memory pairs filled a page at a time after a start from saved scores
// (src/db/scoringInput.ts `prepare`): writes that land between pages, a load before the end and a
// rebuild of the aggregates all leave the next load equal to a fresh read of the table.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PairMirror } from '../../src/db/pairMirror.js';
import { scoringInputRepo } from '../../src/db/scoringInput.js';
import type { MinerTaskSummary, TokenWeights } from '../../src/scoring/types.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const TASKS = Array.from({ length: 100 }, (_, i) => `T${String(i).padStart(3, '0')}`);
const HOTKEYS = Array.from({ length: 90 }, (_, i) => `m${String(i).padStart(2, '0')}`);
const W: TokenWeights = { input: 1, cachedInput: 0.1, output: 3 };

let t: TestApp;
let auth: { authorization: string };

async function post(runs: object[]): Promise<void> {
  const res = await t.call({ method: 'POST', url: '/v1/competitions/comp/runs', headers: auth, payload: { runs } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const run = (runId: string, taskId: string, hotkey: string, resolved: boolean) => ({
  runId,
  taskId,
  kind: 'miner',
  minerHotkey: hotkey,
  resolved,
  tokens: { input: 100 + runId.length, cachedInput: 7, output: 11 },
});

beforeEach(async () => {
  t = await testApp();
  auth = { authorization: `Bearer ${(await seedCompetition(t)).validatorKey}` };
  const tasks = TASKS.map((id) => ({ id, type: 'swebench_verified', complexity: 'short' }));
  expect(
    (await t.call({ method: 'PUT', url: '/v1/competitions/comp/tasks', headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  // 9,000 pairs: nine pages of 1,024.
  const all = HOTKEYS.flatMap((h, i) => TASKS.map((task, j) => run(`${h}-${task}`, task, h, (i + j) % 3 === 0)));
  for (let at = 0; at < all.length; at += 1000) await post(all.slice(at, at + 1000));
});

afterEach(async () => t.close());

/** The table as a fresh read gives it, through the same row conversion. */
function fresh(weights: TokenWeights): MinerTaskSummary[] {
  const rows = t.db.$client
    .prepare(
      `SELECT task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum
       FROM miner_tasks WHERE competition_id = 'comp'`,
    )
    .raw()
    .all() as unknown[][];
  return [...new PairMirror(weights, rows).entries()];
}

const sorted = (list: Iterable<MinerTaskSummary>, xs = [...list]) =>
  [...xs].sort((a, b) => (a.taskId + '/' + a.hotkey < b.taskId + '/' + b.hotkey ? -1 : 1));

it('fills a page a step and ends equal to a fresh read, with writes between the pages', async () => {
  const repo = scoringInputRepo(t.db);
  const steps = repo.prepare('comp', W);
  expect(steps.next()).toEqual({ done: false, value: 1024 });
  // The first page holds the hotkeys m00 to m10 (100 tasks each). Writes to pairs already read, a
  // new pair before the page's end, a pair not read yet, and a deleted run.
  await post([
    run('late-1', 'T005', 'm00', true),
    run('late-2', 'T010', 'a-newcomer', true),
    run('late-3', 'T099', 'm89', false),
  ]);
  const del = await t.call({ method: 'DELETE', url: '/v1/competitions/comp/runs/m01-T001', headers: admin });
  expect(del.status).toBe(200);
  expect(steps.next()).toEqual({ done: false, value: 1024 });
  await post([run('late-4', 'T000', 'm02', true)]);
  let pages = 2;
  while (!steps.next().done) pages++;
  expect(pages).toBe(8); // 9,000 rows: eight full pages, the ninth read in the last step

  const got = repo.load('comp', W).minerTasks;
  expect(got).toHaveLength(9000); // one pair new, one gone with its only run
  expect(sorted(got)).toEqual(sorted(fresh(W)));
  // The load answered from the filled pairs: a row removed behind the mirror's back (no write
  // event) is still in it, where a read of the table would not have it.
  t.db.$client.prepare(`DELETE FROM miner_tasks WHERE competition_id = 'comp' AND hotkey = 'm50'`).run();
  expect(repo.load('comp', W).minerTasks).toHaveLength(9000);
  expect(fresh(W)).toHaveLength(8900);
});

it('stops when a load reads everything first, and that load is right', async () => {
  const repo = scoringInputRepo(t.db);
  const steps = repo.prepare('comp', W);
  expect(steps.next().done).toBe(false);
  await post([run('late-1', 'T003', 'm03', true)]);
  const loaded = repo.load('comp', W).minerTasks;
  expect(sorted(loaded)).toEqual(sorted(fresh(W)));
  expect(steps.next().done).toBe(true);
  expect(repo.load('comp', W).minerTasks).toBe(loaded);
  // Nothing to fill once the pairs are in memory.
  expect(repo.prepare('comp', W).next().done).toBe(true);
});

it('gives up on a rebuild of the aggregates: the next load reads everything again', async () => {
  const repo = scoringInputRepo(t.db);
  const steps = repo.prepare('comp', W);
  expect(steps.next().done).toBe(false);
  const weights = { input: 2, cachedInput: 0.5, output: 1 };
  const res = await t.call({
    method: 'PUT',
    url: '/v1/competitions/comp',
    headers: admin,
    payload: { name: 'Test', tokenWeights: weights },
  });
  expect(res.status).toBe(200);
  expect(steps.next().done).toBe(true);
  expect(sorted(repo.load('comp', weights).minerTasks)).toEqual(sorted(fresh(weights)));
});

it('leaves nothing behind when its reader stops early: a later fill runs whole', async () => {
  // Through the store, as the server fills at a start and stops at a shutdown.
  for await (const _ of t.store.scoringInput.prepare('comp', W)) break;
  let steps = 0;
  for await (const _ of t.store.scoringInput.prepare('comp', W)) steps++;
  expect(steps).toBe(8);
});
