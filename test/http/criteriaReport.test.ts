// GET …/criteria/report (SPEC 12, API.md 1.2) on the real SWE-Atlas QnA task set, graded under the
// shipped judge configuration with seeded random votes: the report equals the one computed here
// from the raw votes and the raw rubric rows, with no code shared with the server's report. Runs
// graded under an earlier judge configuration (stale) count nowhere; the stage set chooses tasks.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { prng } from '../support/prng.js';

const DATA = new URL('../../fixtures/swe-atlas-qna/', import.meta.url);
const ROWS = readFileSync(new URL('tasks.jsonl', DATA), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { task_id: string; rubric: string });
const JUDGE = JSON.parse(readFileSync(new URL('judge.json', DATA), 'utf8')) as Record<string, unknown>;
const OTHER_JUDGE = { ...JUDGE, model: 'another-judge' };
/** The first rows go to screener_2, the rest to evaluation. */
const SCREENER_ROWS = 40;
const MINERS = ['5Miner-a', '5Miner-b', '5Miner-c'];

interface RawCriterion {
  id: string;
  annotations: { type: string };
  change?: string | null;
}
const rubricOf = (row: { rubric: string }) =>
  (JSON.parse(row.rubric) as RawCriterion[]).map((c) => ({
    id: c.id,
    polarity: c.annotations.type.startsWith('positive') ? 'positive' : 'negative',
    change: c.change ?? null,
  }));

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'QnA', judgeVotes: 5 });
  const toJsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  for (const [rows, stage] of [
    [ROWS.slice(0, SCREENER_ROWS), 'screener_2'],
    [ROWS.slice(SCREENER_ROWS), 'evaluation'],
  ] as const) {
    const res = await t.call({
      method: 'POST',
      url: `/v1/competitions/c/tasks/import?stage=${stage}`,
      headers: { ...admin, 'content-type': 'application/x-ndjson' },
      payload: toJsonl(rows),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterEach(async () => t.close());

const putJudge = async (j: Record<string, unknown>) => {
  const res = await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: j });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.digest as string;
};

/** One posted run, as the test keeps it: who ran it, on which task, and every criterion's votes. */
interface PostedRun {
  taskId: string;
  miner: string | null;
  votes: Map<string, ('YES' | 'NO')[]>;
}

/**
 * Runs on every task by the baseline and each miner (one to two each), five votes a criterion:
 * each criterion leans YES or NO per run, and a vote goes the other way now and then, so some
 * verdicts split.
 */
function makeRuns(seed: number): PostedRun[] {
  const rng = prng(seed);
  const runs: PostedRun[] = [];
  for (const row of ROWS) {
    for (const miner of [null, ...MINERS]) {
      for (let n = rng.int(1, 2); n > 0; n--) {
        const votes = new Map<string, ('YES' | 'NO')[]>();
        for (const c of rubricOf(row)) {
          const lean = rng.chance(0.6);
          const flip = rng.chance(0.3) ? 0.25 : 0.03;
          votes.set(
            c.id,
            Array.from({ length: 5 }, () => ((rng.chance(flip) ? !lean : lean) ? 'YES' : 'NO')),
          );
        }
        runs.push({ taskId: row.task_id, miner, votes });
      }
    }
  }
  return runs;
}

async function postRuns(runs: PostedRun[], prefix: string, digest: string) {
  const body = runs.map((r, i) => ({
    runId: `${prefix}-${i}`,
    taskId: r.taskId,
    ...(r.miner ? { kind: 'miner', minerHotkey: r.miner } : { kind: 'baseline' }),
    tokens: { input: 1000, output: 200 },
    rubricVotes: [...r.votes].map(([criterionId, votes]) => ({
      criterionId,
      votes: votes.map((verdict) => ({ verdict })),
    })),
    judge: { digest },
    answerDate: '2026-11-30',
  }));
  for (let i = 0; i < body.length; i += 500) {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: body.slice(i, i + 500) },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  }
}

/** The report as SPEC 12 defines it, computed from the raw rows and votes. */
function expected(runs: PostedRun[], stages: string[]) {
  const inStages = ROWS.filter((_, i) => stages.includes(i < SCREENER_ROWS ? 'screener_2' : 'evaluation'));
  const criterionGroup = new Map<string, string>();
  const groups = new Map<string, { change: string | null; polarity: string; criteria: number }>();
  for (const row of inStages) {
    for (const c of rubricOf(row)) {
      const g = JSON.stringify([c.change, c.polarity]);
      criterionGroup.set(`${row.task_id}/${c.id}`, g);
      const have = groups.get(g);
      if (have) have.criteria += 1;
      else groups.set(g, { change: c.change, polarity: c.polarity, criteria: 1 });
    }
  }
  type Tally = { verdicts: number; met: number; split: number };
  const tallies = new Map<string, Map<string, Tally>>(); // group -> who ('' baseline, '*' pooled, hotkey)
  const bump = (g: string, who: string, met: boolean, split: boolean) => {
    const byWho = tallies.get(g) ?? new Map<string, Tally>();
    tallies.set(g, byWho);
    const x = byWho.get(who) ?? { verdicts: 0, met: 0, split: 0 };
    byWho.set(who, x);
    x.verdicts += 1;
    x.met += met ? 1 : 0;
    x.split += split ? 1 : 0;
  };
  const seen = new Set<string>();
  for (const r of runs) {
    for (const [id, votes] of r.votes) {
      const g = criterionGroup.get(`${r.taskId}/${id}`);
      if (!g) continue;
      const yes = votes.filter((v) => v === 'YES').length;
      const verdictYes = yes * 2 > votes.length;
      const met = groups.get(g)!.polarity === 'positive' ? verdictYes : !verdictYes;
      const split = yes !== 0 && yes !== votes.length;
      bump(g, '*', met, split);
      bump(g, r.miner ?? '', met, split);
      if (r.miner) seen.add(r.miner);
    }
  }
  const stat = (x: Tally | undefined) => {
    const v = x ?? { verdicts: 0, met: 0, split: 0 };
    return {
      ...v,
      metRate: v.verdicts ? v.met / v.verdicts : null,
      splitRate: v.verdicts ? v.split / v.verdicts : null,
    };
  };
  const changeRank = [null, 'stability', 'precision', 'scale-correction'];
  return [...groups]
    .sort(
      ([, a], [, b]) =>
        changeRank.indexOf(a.change) - changeRank.indexOf(b.change) ||
        (a.polarity === b.polarity ? 0 : a.polarity === 'positive' ? -1 : 1),
    )
    .map(([g, meta]) => ({
      ...meta,
      pooled: stat(tallies.get(g)?.get('*')),
      baseline: stat(tallies.get(g)?.get('')),
      miners: Object.fromEntries([...seen].sort().map((h) => [h, stat(tallies.get(g)?.get(h))])),
    }));
}

it('equals the report computed from the raw votes, leaving out stale runs, over the chosen stages', async () => {
  const stale = makeRuns(7);
  const current = makeRuns(39);
  await putJudge(OTHER_JUDGE);
  await postRuns(stale, 'old', (await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).body.digest);
  const digest = await putJudge(JUDGE);
  await postRuns(current, 'new', digest);

  const all = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' });
  expect(all.status).toBe(200);
  expect(all.body.stages).toEqual(['screener_2', 'evaluation']);
  const want = expected(current, ['screener_2', 'evaluation']);
  // The real set: unchanged criteria of both polarities and the k6 task's two scale corrections.
  expect(want.map((g) => [g.change, g.polarity, g.criteria])).toEqual([
    [null, 'positive', 1220],
    [null, 'negative', 84],
    ['scale-correction', 'negative', 2],
  ]);
  expect(want[0]!.pooled.split).toBeGreaterThan(0);
  expect(all.body).toEqual({ competitionId: 'c', stages: ['screener_2', 'evaluation'], groups: want });

  const screener = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report?stages=screener_2' });
  expect(screener.status).toBe(200);
  expect(screener.body.groups).toEqual(expected(current, ['screener_2']));
  expect(screener.body.groups).not.toEqual(all.body.groups);

  // Back to the other judge: the first runs count, and only they.
  await putJudge(OTHER_JUDGE);
  const back = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report?stages=evaluation' });
  expect(back.body.groups).toEqual(expected(stale, ['evaluation']));
});

it('answers 304 to its own ETag until a write, and 404 for an unknown competition', async () => {
  const first = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' });
  expect(first.status).toBe(200);
  expect(first.body.groups.every((g: { pooled: { verdicts: number } }) => g.pooled.verdicts === 0)).toBe(true);
  const etag = first.headers.etag as string;
  expect(etag).toBeTruthy();
  const again = await t.call({
    method: 'GET',
    url: '/v1/competitions/c/criteria/report',
    headers: { 'if-none-match': etag },
  });
  expect(again.status).toBe(304);
  const digest = await putJudge(JUDGE);
  await postRuns(makeRuns(3).slice(0, 20), 'x', digest);
  const after = await t.call({
    method: 'GET',
    url: '/v1/competitions/c/criteria/report',
    headers: { 'if-none-match': etag },
  });
  expect(after.status).toBe(200);
  expect(after.body.groups[0].pooled.verdicts).toBeGreaterThan(0);
  expect((await t.call({ method: 'GET', url: '/v1/competitions/nope/criteria/report' })).status).toBe(404);
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report?stages=nope' })).status).toBe(400);
});
