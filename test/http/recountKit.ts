// Shared setup of the recount suites (recountElsewhere, recountAttack): a competition with QnA and
// SWE-bench tasks, a judge, two validators' runs, and what a recount decides, as read and as stored.
import { expect } from 'vitest';
import { admin, type TestApp } from '../support/app.js';
import { JUDGE, N, P, qna } from './trustKit.js';

export const J1 = JUDGE;
export const J2 = { ...J1, model: 'judge-b' };
export const TASKS = [
  { id: 'q1', type: 'swe_atlas_qna', complexity: 'short', qna },
  { id: 'q2', type: 'swe_atlas_qna', complexity: 'long', qna },
  { id: 's', type: 'swebench_verified', complexity: 'short' },
];

/** Runs of every kind from one validator: SWE-bench and QnA (graded under `digest`), or SWE-bench only. */
export function runsOf(prefix: string, digest: string | null, seed: number, n = 24) {
  const runs: unknown[] = [];
  const who = [null, 'alice', 'bob', 'carol'];
  for (let i = 0; i < n; i++) {
    const miner = who[(i + seed) % who.length]!;
    const kind = miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' };
    const met = (i * 7 + seed) % 3 !== 0;
    const tokens = { input: 1000 + 37 * i, cachedInput: 50 * (i % 4), output: 100 + 11 * ((i + seed) % 5) };
    if (digest === null || i % 3 === 2)
      runs.push({ runId: `${prefix}-${i}`, taskId: 's', ...kind, resolved: met, tokens });
    else
      runs.push({
        runId: `${prefix}-${i}`,
        taskId: i % 3 === 0 ? 'q1' : 'q2',
        ...kind,
        tokens,
        rubricVotes: [
          { criterionId: P, votes: [0, 1, 2].map((k) => ({ verdict: met || k === 0 ? 'YES' : 'NO' })) },
          { criterionId: N, votes: [0, 1, 2].map((k) => ({ verdict: k === i % 3 ? 'YES' : 'NO' })) },
        ],
        judge: { digest },
        answerDate: '2026-11-30',
      });
  }
  return runs;
}

export interface Side {
  t: TestApp;
  keys: string[];
  ids: string[];
}

export async function ok(t: TestApp, method: 'PUT' | 'POST', url: string, payload: unknown, headers = admin) {
  const res = await t.call({ method, url, headers, payload: payload as object });
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** Competitions `cs`, each with tasks, a judge and two validators' runs, on `t`. */
export async function seed(t: TestApp, cs: string[] = ['c']): Promise<Side> {
  const keys: string[] = [];
  const ids: string[] = [];
  for (const name of ['v1', 'v2']) {
    const v = await ok(t, 'POST', '/v1/validators', { name });
    keys.push(v.apiKey);
    ids.push(v.id);
  }
  for (const c of cs) {
    const C = `/v1/competitions/${c}`;
    await ok(t, 'PUT', C, { name: c, judgeVotes: 3 });
    await ok(t, 'PUT', `${C}/tasks`, { tasks: TASKS });
    const j1 = await ok(t, 'PUT', `${C}/judge`, J1);
    for (const [i, key] of keys.entries())
      await ok(t, 'POST', `${C}/runs`, { runs: runsOf(`v${i}`, j1.digest, i) }, { authorization: `Bearer ${key}` });
  }
  return { t, keys, ids };
}

/** What a recount decides in competition `c`, as the app answers it (its caches) and as stored. */
export async function recounted(t: TestApp, c = 'c', ids: string[] = []) {
  const C = `/v1/competitions/${c}`;
  const read = async (url: string) => {
    const res = await t.call({ method: 'GET', url, headers: admin });
    expect(res.status, url).toBe(200);
    return res.body;
  };
  // Timestamps and validator ids are each app's own.
  const strip = (b: unknown) =>
    JSON.parse(
      ids.reduce(
        (text, id, i) => text.replaceAll(id, `v${i}`),
        JSON.stringify(b).replace(/"\w+At":"[^"]+"/g, '"at":0'),
      ),
    );
  return {
    competition: strip(await read(C)),
    leaderboard: await read(`${C}/leaderboard`),
    weights: await read(`${C}/weights`),
    q1: await read(`${C}/tasks/q1`),
    criteria: await read(`${C}/criteria/report`),
    minerTasks: await t.rows('miner_tasks'),
    tasks: await t.rows('tasks', ['created_at', 'updated_at']),
    taskCriteria: await t.rows('task_criteria'),
    miners: await t.rows('miners', ['created_at', 'updated_at']),
  };
}
