// SPEC 6 and 12: a miner the operator excluded takes part in nothing, the stability report
// included. Its runs count in no group, neither under its hotkey nor pooled, as stale runs and
// excluded validators' runs; the report's ETag moves when it is excluded and when it is included
// again, after which the report is the one before.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const DATA = new URL('../../fixtures/swe-atlas-qna/', import.meta.url);
const ROWS = readFileSync(new URL('tasks.jsonl', DATA), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .slice(0, 2)
  .map((l) => JSON.parse(l) as { task_id: string; rubric: string });
const JUDGE = JSON.parse(readFileSync(new URL('judge.json', DATA), 'utf8')) as Record<string, unknown>;
const CRITERIA = ROWS.map((row) => (JSON.parse(row.rubric) as { id: string }[]).map((c) => c.id));
const url = '/v1/competitions/c/criteria/report';

interface Stats {
  verdicts: number;
  met: number;
  split: number;
}
interface Group {
  pooled: Stats;
  baseline: Stats;
  miners: Record<string, Stats>;
}

let t: TestApp;
let digest: string;
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'QnA', judgeVotes: 5 });
  const imported = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/tasks/import?stage=evaluation',
    headers: { ...admin, 'content-type': 'application/x-ndjson' },
    payload: ROWS.map((r) => JSON.stringify(r)).join('\n') + '\n',
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  const judge = await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: JUDGE });
  expect(judge.status, JSON.stringify(judge.body)).toBe(200);
  digest = judge.body.digest as string;
});
afterEach(async () => t.close());

/** `n` runs of each party on every task, votes varying with the run so verdicts are met, missed and split. */
async function postRuns(prefix: string, parties: (string | null)[], n: number) {
  const runs = parties.flatMap((party, p) =>
    Array.from({ length: n }, (_, i) =>
      ROWS.map((row, k) => ({
        runId: `${prefix}-${p}-${i}-${k}`,
        taskId: row.task_id,
        ...(party ? { kind: 'miner', minerHotkey: party } : { kind: 'baseline' }),
        tokens: { input: 1000, output: 200 },
        rubricVotes: CRITERIA[k]!.map((criterionId, c) => ({
          criterionId,
          votes: Array.from({ length: 5 }, (_, v) => ({ verdict: v < (i * 3 + c + p) % 6 ? 'YES' : 'NO' })),
        })),
        judge: { digest },
        answerDate: '2026-11-30',
      })),
    ).flat(),
  );
  const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
}

const exclude = async (hotkey: string, excluded: boolean) => {
  const res = await t.call({
    method: 'PUT',
    url: `/v1/competitions/c/miners/${hotkey}`,
    headers: admin,
    payload: excluded ? { excluded, reason: 'copied another miner' } : { excluded },
  });
  expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
};

async function report(etag?: string) {
  const res = await t.call({ method: 'GET', url, headers: etag ? { 'if-none-match': etag } : {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { groups: res.body.groups as unknown as Group[], etag: String(res.headers.etag) };
}

const minus = (a: Stats, b: Stats) => ({
  verdicts: a.verdicts - b.verdicts,
  met: a.met - b.met,
  split: a.split - b.split,
});
const counts = (s: Stats) => ({ verdicts: s.verdicts, met: s.met, split: s.split });

it("leaves an excluded miner's runs out of every group, pooled included, and the ETag follows", async () => {
  await postRuns('r', [null, '5Miner-a', '5Miner-b'], 3);
  const before = await report();
  expect(Object.keys(before.groups[0]!.miners)).toEqual(['5Miner-a', '5Miner-b']);
  expect(before.groups[0]!.miners['5Miner-a']!.verdicts).toBeGreaterThan(0);

  await exclude('5Miner-a', true);
  const excluded = await report(before.etag);
  expect(excluded.etag).not.toBe(before.etag);
  expect(excluded.groups).toHaveLength(before.groups.length);
  excluded.groups.forEach((g, i) => {
    const was = before.groups[i]!;
    expect(Object.keys(g.miners)).toEqual(['5Miner-b']);
    expect(counts(g.miners['5Miner-b']!)).toEqual(counts(was.miners['5Miner-b']!));
    expect(counts(g.baseline)).toEqual(counts(was.baseline));
    expect(counts(g.pooled)).toEqual(minus(was.pooled, was.miners['5Miner-a']!));
  });

  // Runs it sends while excluded count nowhere either: the same report, the same ETag.
  await postRuns('late', ['5Miner-a'], 2);
  const still = await t.call({ method: 'GET', url, headers: { 'if-none-match': excluded.etag } });
  expect(still.status).toBe(304);

  // Included again: all of its runs count, those sent while it was excluded too.
  await exclude('5Miner-a', false);
  const back = await report(excluded.etag);
  expect(back.etag).not.toBe(excluded.etag);
  back.groups.forEach((g, i) => {
    expect(Object.keys(g.miners)).toEqual(['5Miner-a', '5Miner-b']);
    expect(g.miners['5Miner-a']!.verdicts).toBe((before.groups[i]!.miners['5Miner-a']!.verdicts * 5) / 3);
  });
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/late-0-0-0', headers: admin });
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/late-0-0-1', headers: admin });
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/late-0-1-0', headers: admin });
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/late-0-1-1', headers: admin });
  expect(await report()).toEqual(before);
});

it('never lists a miner excluded before its first run', async () => {
  await exclude('5Miner-x', true);
  await postRuns('r', [null, '5Miner-x'], 2);
  const { groups } = await report();
  for (const g of groups) {
    expect(g.miners).toEqual({});
    expect(counts(g.pooled)).toEqual(counts(g.baseline));
    expect(g.baseline.verdicts).toBeGreaterThan(0);
  }
});
