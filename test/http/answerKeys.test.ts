// Answer keys stay private (API.md 1.1): public task reads leave out a QnA task's referenceAnswer
// and its rubric (criterion ids and titles); per-criterion rates stay, by position. The admin
// reads everything; `revealAnswers: true` makes them public.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';
import { parquetRows } from '../support/exportRows.js';
import { createValidators, N, P, postRuns, QNA_ID, qna, setupCompetition, type Validator } from './trustKit.js';

let t: TestApp;
let V: Validator;
beforeEach(async () => {
  t = await testApp();
  await setupCompetition(t);
  [V] = (await createValidators(t, 1)) as [Validator];
  const votes = (p: number, n: number) => [
    { criterionId: P, votes: [0, 1, 2].map((i) => ({ verdict: i < p ? 'YES' : 'NO' })) },
    { criterionId: N, votes: [0, 1, 2].map((i) => ({ verdict: i < n ? 'YES' : 'NO' })) },
  ];
  // P met 2 of 3 (one split); N met 3 of 3 (one split).
  await postRuns(t, V.headers, [
    { runId: 'q1', taskId: QNA_ID, kind: 'miner', minerHotkey: 'm1', rubricVotes: votes(3, 0) },
    { runId: 'q2', taskId: QNA_ID, kind: 'miner', minerHotkey: 'm1', rubricVotes: votes(2, 1) },
    { runId: 'q3', taskId: QNA_ID, kind: 'miner', minerHotkey: 'm2', rubricVotes: votes(0, 0) },
  ]);
});
afterEach(async () => t.close());

const read = async (headers: Record<string, string> = {}) => {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/c/tasks/${QNA_ID}`, headers });
  expect(res.status).toBe(200);
  return res.body;
};
const reveal = async (revealAnswers: boolean) =>
  expect(
    (
      await t.call({
        method: 'PUT',
        url: '/v1/competitions/c',
        headers: admin,
        payload: { name: 'Trust', revealAnswers },
      })
    ).status,
  ).toBe(200);

const RATES = [
  { position: 0, type: 'positive', graded: 3, metRate: 2 / 3, splitRate: 1 / 3 },
  { position: 1, type: 'negative', graded: 3, metRate: 1, splitRate: 1 / 3 },
];

it('hides the reference answer and criterion ids and titles from public reads, keeping the rates by position', async () => {
  for (const headers of [{}, V.headers]) {
    const body = await read(headers);
    expect(body.answersRevealed).toBe(false);
    expect(body.qna).not.toHaveProperty('referenceAnswer');
    expect(body.qna.prompt).toBe(qna.prompt);
    expect(body.criteria).toMatchObject(RATES);
    for (const c of body.criteria) {
      expect(c).not.toHaveProperty('id');
      expect(c).not.toHaveProperty('title');
    }
    const text = JSON.stringify(body);
    for (const secret of [qna.referenceAnswer, P, N, ...qna.rubric.map((c) => c.title)])
      expect(text).not.toContain(secret);
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).body.revealAnswers).toBe(false);
});

it('shows the admin everything', async () => {
  const body = await read(admin);
  expect(body.answersRevealed).toBe(true);
  expect(body.qna.referenceAnswer).toBe(qna.referenceAnswer);
  expect(body.criteria).toMatchObject(
    RATES.map((r, i) => ({ ...r, id: qna.rubric[i]!.id, title: qna.rubric[i]!.title })),
  );
});

it('revealAnswers: true makes them public; false hides them again', async () => {
  // Read first, so a cached public body would be served if the setting did not reach the cache.
  await read();
  await reveal(true);
  const body = await read();
  expect(body.answersRevealed).toBe(true);
  expect(body.qna.referenceAnswer).toBe(qna.referenceAnswer);
  expect(body.criteria.map((c: { id: string; title: string }) => [c.id, c.title])).toEqual(
    qna.rubric.map((c) => [c.id, c.title]),
  );
  expect(body).toEqual(await read(admin));
  await reveal(false);
  expect(await read()).not.toHaveProperty('qna.referenceAnswer');
});

it('public and admin bodies carry different ETags, and Vary names Authorization', async () => {
  const pub = await t.call({ method: 'GET', url: `/v1/competitions/c/tasks/${QNA_ID}` });
  const adm = await t.call({ method: 'GET', url: `/v1/competitions/c/tasks/${QNA_ID}`, headers: admin });
  expect(pub.headers.etag).not.toBe(adm.headers.etag);
  expect(String(pub.headers.vary).toLowerCase()).toContain('authorization');
  // The admin's ETag does not fetch a 304 for a public reader.
  const cond = await t.call({
    method: 'GET',
    url: `/v1/competitions/c/tasks/${QNA_ID}`,
    headers: { 'if-none-match': String(adm.headers.etag) },
  });
  expect(cond.status).toBe(200);
  expect(cond.body.qna).not.toHaveProperty('referenceAnswer');
});

describe("runs: the votes' criterion ids, reasons and evidence are the answer key too", () => {
  const SECRET = 'SECRET-REASONING';
  beforeEach(async () => {
    // Sent in the rubric's reverse order, with the judge's reasons and quotes.
    const rubricVotes = [
      { criterionId: N, votes: [0, 1, 2].map(() => ({ verdict: 'NO', reason: `${SECRET} n`, evidence: 'quote' })) },
      { criterionId: P, votes: [0, 1, 2].map(() => ({ verdict: 'YES', reason: `${SECRET} p` })) },
    ];
    await postRuns(t, V.headers, [{ runId: 'r', taskId: QNA_ID, kind: 'miner', minerHotkey: 'm3', rubricVotes }]);
  });
  const bodies = async (headers: Record<string, string>) => [
    (await t.call({ method: 'GET', url: '/v1/competitions/c/runs/r', headers })).body,
    (await t.call({ method: 'GET', url: '/v1/competitions/c/runs?miner=m3', headers })).body.runs[0],
  ];
  /** Each export format as text: NDJSON and CSV as sent, Parquet as the rows read back. */
  const exported = async (headers: Record<string, string>) =>
    Promise.all(
      ['ndjson', 'csv', 'parquet'].map(async (format) => {
        const url = `/v1/competitions/c/runs/export?format=${format}`;
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode).toBe(200);
        return format === 'parquet' ? JSON.stringify((await parquetRows(res.rawPayload)).rows) : res.body;
      }),
    );

  it('public run reads and exports name criteria by position, with verdicts and no ids, reasons or evidence', async () => {
    for (const headers of [{}, V.headers]) {
      for (const run of await bodies(headers)) {
        expect(run.criteria).toEqual([
          { position: 0, yes: 3, no: 0, verdict: 'YES', met: true, split: false },
          { position: 1, yes: 0, no: 3, verdict: 'NO', met: true, split: false },
        ]);
        expect(run.rubricVotes).toEqual([
          { position: 0, votes: [{ verdict: 'YES' }, { verdict: 'YES' }, { verdict: 'YES' }] },
          { position: 1, votes: [{ verdict: 'NO' }, { verdict: 'NO' }, { verdict: 'NO' }] },
        ]);
      }
      for (const file of await exported(headers)) {
        for (const secret of [P, N, SECRET]) expect(file.includes(secret)).toBe(false);
        expect(file.includes('position')).toBe(true);
      }
    }
  });

  it('the admin, or anyone once answers are revealed, reads them whole, as sent', async () => {
    const check = async (headers: Record<string, string>) => {
      for (const run of await bodies(headers)) {
        expect(run.criteria.map((c: { criterionId: string }) => c.criterionId)).toEqual([P, N]);
        expect(
          run.rubricVotes.map((v: { position: number; criterionId: string }) => [v.position, v.criterionId]),
        ).toEqual([
          [1, N],
          [0, P],
        ]);
        expect(run.rubricVotes[0].votes[0]).toEqual({ verdict: 'NO', reason: `${SECRET} n`, evidence: 'quote' });
      }
      for (const file of await exported(headers)) expect(file.includes(P)).toBe(true);
    };
    await check(admin);
    await reveal(true);
    await check({});
  });
});
