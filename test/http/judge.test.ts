// SPEC 12 / API.md 1.2: the judge configuration. PUT, GET and GET by digest; QnA runs name the
// digest they were graded under; a judge change makes the earlier runs stale (listed, scored
// nowhere) and the leaderboard that of the new-digest runs alone, and a return to the earlier
// configuration counts them again. An unknown digest is refused, naming the one in force.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';

const J1 = {
  model: 'judge-a',
  reasoningEffort: 'high',
  votes: 3,
  temperature: 0,
  promptTemplate: 'Question: {question}\nAnswer ({answer_date}): {answer}\nCriterion: {criterion}',
  outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } }, required: ['verdict'] },
};
const J2 = { ...J1, model: 'judge-b', reasoningEffort: 'xhigh' };
const digestOf = (j: object) => createHash('sha256').update(canonicalJson(j), 'utf8').digest('hex');
const D1 = digestOf(J1);
const D2 = digestOf(J2);

const P = 'a'.repeat(32);
const N = 'b'.repeat(32);
const rubric = [
  { id: P, type: 'positive', title: '1.1: names resetBudget', importance: 'must have' },
  { id: N, type: 'negative', title: '1.2: does not blame the client', importance: 'must have' },
];
const qna = {
  prompt: 'Where is the retry budget reset?',
  referenceAnswer: 'In resetBudget().',
  repositoryUrl: 'acme/widgets',
  repositoryBaseCommit: 'f'.repeat(40),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric,
};
const TASKS = [
  { id: 'q1', type: 'swe_atlas_qna', complexity: 'short', qna },
  { id: 'q2', type: 'swe_atlas_qna', complexity: 'long', qna },
  { id: 's', type: 'swebench_verified', complexity: 'short' },
];

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  for (const id of ['c', 'ref']) {
    const c = await t.call({
      method: 'PUT',
      url: `/v1/competitions/${id}`,
      headers: admin,
      payload: { name: id, judgeVotes: 3 },
    });
    expect(c.status).toBe(201);
    const tasks = await t.call({
      method: 'PUT',
      url: `/v1/competitions/${id}/tasks`,
      headers: admin,
      payload: { tasks: TASKS },
    });
    expect(tasks.status, JSON.stringify(tasks.body)).toBe(200);
  }
});
afterEach(async () => {
  await t.close();
});

const putJudge = (id: string, payload: Record<string, unknown>) =>
  t.call({ method: 'PUT', url: `/v1/competitions/${id}/judge`, headers: admin, payload });

/** A QnA run graded under `digest`: met on both criteria when `resolved`. */
function qnaRun(runId: string, taskId: string, miner: string | null, resolved: boolean, digest: string) {
  const v = (yes: boolean) => Array.from({ length: 3 }, () => ({ verdict: yes ? 'YES' : 'NO' }));
  return {
    runId,
    taskId,
    ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
    tokens: { input: 1000, output: resolved ? 100 : 300 },
    rubricVotes: [
      { criterionId: P, votes: v(resolved) },
      { criterionId: N, votes: v(false) },
    ],
    judge: { digest },
    answerDate: '2026-11-30',
  };
}
const sweRun = (runId: string, miner: string | null, resolved: boolean) => ({
  runId,
  taskId: 's',
  ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
  resolved,
  tokens: { input: 1000, output: 100 },
});

async function post(id: string, runs: unknown[]) {
  return t.call({ method: 'POST', url: `/v1/competitions/${id}/runs`, headers: admin, payload: { runs } });
}
async function postOk(id: string, runs: unknown[]) {
  const res = await post(id, runs);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The leaderboard without what names the competition. */
async function board(id: string): Promise<Json> {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` });
  expect(res.status).toBe(200);
  return JSON.parse(JSON.stringify(res.body).replaceAll(`"${id}"`, '"X"'));
}
async function staleOf(id: string): Promise<Record<string, boolean>> {
  const res = await t.call({ method: 'GET', url: `/v1/competitions/${id}/runs?limit=100` });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.runs as { runId: string; stale: boolean }[]).map((r) => [r.runId, r.stale]));
}

it('PUT keeps every version, GET gives the one in force and any by digest', async () => {
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
  const one = await putJudge('c', J1);
  expect(one.status, JSON.stringify(one.body)).toBe(200);
  expect(one.body).toMatchObject({ ...J1, digest: D1, version: 1, competitionId: 'c' });
  expect((await putJudge('c', J2)).body).toMatchObject({ digest: D2, version: 2 });
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).body).toMatchObject({ ...J2, digest: D2 });
  expect((await t.call({ method: 'GET', url: `/v1/competitions/c/judge/${D1}` })).body).toMatchObject({
    ...J1,
    digest: D1,
  });
  expect((await t.call({ method: 'GET', url: `/v1/competitions/c/judge/${'0'.repeat(64)}` })).status).toBe(404);
  // The one in force sent again (PUT is idempotent) records nothing: no version, no audit entry.
  expect((await putJudge('c', J2)).body).toMatchObject({ digest: D2, version: 2 });
  const audit = await t.call({ method: 'GET', url: '/v1/audit?limit=100', headers: admin });
  const actions = (audit.body.entries as { action: string }[]).map((e) => e.action);
  expect(actions.filter((a) => a === 'judge.record')).toHaveLength(2);
  // An earlier one sent again is a change: a new version, in force.
  expect((await putJudge('c', J1)).body).toMatchObject({ digest: D1, version: 3 });
});

it('refuses a bad configuration with a 400 naming the field, and stores nothing', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...J1, votes: 4 }, 'votes'],
    [{ ...J1, promptTemplate: 'no date here' }, 'promptTemplate'],
    [{ ...J1, temperature: -1 }, 'temperature'],
    [{ ...J1, model: '' }, 'model'],
    [{ ...J1, outputSchema: 'x' }, 'outputSchema'],
    // A field the digest would not cover is named, not dropped: a misspelt one, an extra one.
    [{ ...J1, temprature: 0.2 }, 'body/temprature'],
    [{ ...J1, seed: 7 }, 'body/seed'],
  ];
  for (const [payload, field] of cases) {
    const res = await putJudge('c', payload);
    expect(res.status, field).toBe(400);
    expect(JSON.stringify(res.body), field).toContain(field);
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
});

it('refuses an outputSchema nested past 32 levels with a 400 naming it; one at the limit snapshots', async () => {
  // A deep schema was stored, then overflowed the stack of the canonical JSON every snapshot makes
  // (each one a 500 until the judge changed), or of the digest itself (a 500).
  const nested = (levels: number) => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 1; i < levels; i++) schema = { type: 'array', items: schema };
    return schema;
  };
  // 5,000 levels as text: serialising so deep a value would overflow this test's own stack.
  const deep = `{"type":"string"${',"items":{"type":"array"'.repeat(4999)}${'}'.repeat(4999)}}`;
  const asText = JSON.stringify({ ...J1, outputSchema: '@' }).replace('"@"', deep);
  for (const levels of [33, 5000]) {
    const res =
      levels === 5000
        ? await t.call({
            method: 'PUT',
            url: '/v1/competitions/c/judge',
            headers: { ...admin, 'content-type': 'application/json' },
            payload: asText,
          })
        : await putJudge('c', { ...J1, outputSchema: nested(levels) });
    expect(res.status, String(levels)).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body)).toContain('body/outputSchema');
    expect(res.body.detail).toContain('32 levels');
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
  expect((await putJudge('c', { ...J1, outputSchema: nested(32) })).status).toBe(200);
  const snapshot = await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(snapshot.status, JSON.stringify(snapshot.body)).toBe(201);
});

it('refuses an outputSchema longer than 200,000 characters as JSON with a 400 naming it; one at the bound is kept', async () => {
  // `{"type":"object","properties":{…}}` of n properties `"pNNNNNN":{"type":"string"}`.
  const wide = (n: number) => ({
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`p${String(i).padStart(6, '0')}`, { type: 'string' }]),
    ),
  });
  const length = (n: number) => JSON.stringify(wide(n)).length;
  // A 5 MB schema of 200,000 properties was stored (its PUT took 2.4 s, every read 0.7 s).
  for (const n of [20_000, 7_700]) {
    expect(length(n)).toBeGreaterThan(200_000);
    const res = await putJudge('c', { ...J1, outputSchema: wide(n) });
    expect(res.status, String(n)).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body)).toContain('body/outputSchema');
    expect(res.body.detail).toContain('200,000 characters');
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
  // The largest n whose schema fits: each property takes 28 characters.
  const n = Math.floor((200_000 - length(0) + 1) / 28);
  expect([length(n) <= 200_000, length(n + 1) > 200_000]).toEqual([true, true]);
  expect((await putJudge('c', { ...J1, outputSchema: wide(n) })).status).toBe(200);
});

/** A judge PUT whose outputSchema's `maximum` is `literal` as written (JSON.stringify would rewrite it). */
const putMaximum = (type: string, literal: string) =>
  t.call({
    method: 'PUT',
    url: '/v1/competitions/c/judge',
    headers: { ...admin, 'content-type': 'application/json' },
    payload: JSON.stringify({ ...J1, outputSchema: { type, maximum: '@' } }).replace('"@"', literal),
  });

it('refuses an outputSchema holding an integer JSON cannot keep exactly (beyond 2^53 - 1), naming it; 2^53 - 1 is kept', async () => {
  // Parsed, 9007199254740993 is ...992: the digest would be of another schema than the one sent.
  for (const literal of ['9007199254740993', '-9007199254740993', '1e300']) {
    const res = await putMaximum('integer', literal);
    expect(res.status, literal).toBe(400);
    expect(JSON.stringify(res.body), literal).toContain('body/outputSchema');
    expect(res.body.detail, literal).toContain('2^53');
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
  const exact = await putJudge('c', { ...J1, outputSchema: { type: 'integer', maximum: 2 ** 53 - 1, minimum: 0.5 } });
  expect(exact.status, JSON.stringify(exact.body)).toBe(200);
  expect((exact.body.outputSchema as { maximum: number }).maximum).toBe(2 ** 53 - 1);
});

it('refuses an outputSchema holding a number past the largest double (1e400 parses as Infinity) with a 400 naming it, not a 500', async () => {
  // The digest's canonical JSON (RFC 8785) has no Infinity: it threw, and the PUT was a 500.
  for (const literal of ['1e400', '-1e400', '[1, 2e308]']) {
    const res = await putMaximum('number', literal);
    expect(res.status, literal).toBe(400);
    expect(JSON.stringify(res.body), literal).toContain('body/outputSchema');
  }
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/judge' })).status).toBe(404);
});

it('a judge change makes earlier runs stale, the leaderboard that of the new runs; a return restores them', async () => {
  expect((await putJudge('c', J1)).status).toBe(200);
  const first = [
    qnaRun('a1', 'q1', 'm1', true, D1),
    qnaRun('a2', 'q2', 'm1', true, D1),
    qnaRun('a3', 'q1', 'm2', false, D1),
    qnaRun('a4', 'q1', null, false, D1),
  ];
  const swe = [sweRun('s1', 'm1', false), sweRun('s2', 'm2', true), sweRun('s3', null, true)];
  await postOk('c', [...first, ...swe]);
  const underJ1 = await board('c');
  const covered = await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?miner=m1&task=q2' });
  expect(covered.body).toMatchObject({ pairs: [{ taskId: 'q2', miner: 'm1', have: 1 }] });

  expect((await putJudge('c', J2)).status).toBe(200);
  const second = [
    qnaRun('b1', 'q1', 'm2', true, D2),
    qnaRun('b2', 'q2', 'm2', true, D2),
    qnaRun('b3', 'q1', 'm1', false, D2),
    qnaRun('b4', 'q2', null, true, D2),
  ];
  await postOk('c', second);
  // The reference holds the new-digest runs and the SWE-bench runs (never stale), nothing else.
  expect((await putJudge('ref', J2)).status).toBe(200);
  await postOk('ref', [...second, ...swe]);
  expect(await board('ref')).not.toEqual(underJ1);
  // Coverage counts the stale run as missing: m1's only run of q2 was graded under J1.
  const cover = await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?miner=m1&task=q2' });
  expect(cover.body).toMatchObject({ pairs: [{ taskId: 'q2', miner: 'm1', have: 0 }] });
  expect(await board('c')).toEqual(await board('ref'));
  expect(await staleOf('c')).toMatchObject({ a1: true, a4: true, b1: false, b4: false, s1: false });
  const one = await t.call({ method: 'GET', url: '/v1/competitions/c/runs/a1' });
  expect(one.body).toMatchObject({ stale: true, judge: { digest: D1 }, answerDate: '2026-11-30' });

  const exported = await t.app.inject({ method: 'GET', url: '/v1/competitions/c/runs/export?format=ndjson' });
  const lines = exported.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { runId: string; stale: boolean; judgeDigest: string | null });
  expect(lines.find((l) => l.runId === 'a1')).toMatchObject({ stale: true, judgeDigest: D1 });
  expect(lines.find((l) => l.runId === 'b1')).toMatchObject({ stale: false, judgeDigest: D2 });
  expect(lines.find((l) => l.runId === 's1')).toMatchObject({ stale: false, judgeDigest: null });
  // A run graded under the earlier configuration is still stored, stale, and scores nothing.
  await postOk('c', [qnaRun('a5', 'q2', 'm2', false, D1)]);
  expect(await staleOf('c')).toMatchObject({ a5: true });
  expect(await board('c')).toEqual(await board('ref'));

  // Back to J1: its runs count again, J2's are stale.
  expect((await putJudge('c', J1)).body).toMatchObject({ digest: D1, version: 3 });
  expect(await staleOf('c')).toMatchObject({ a1: false, a5: false, b1: true });
  await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/a5', headers: admin });
  expect(await board('c')).toEqual(underJ1);
});

it('refuses a digest the competition never held, naming the one in force; a QnA run must name one', async () => {
  expect((await putJudge('c', J1)).status).toBe(200);
  const unknown = await post('c', [qnaRun('x', 'q1', 'm1', true, D2)]);
  expect(unknown.status).toBe(422);
  expect(JSON.stringify(unknown.body)).toContain(D1);
  expect(JSON.stringify(unknown.body)).toContain('body/runs/0/judge/digest');
  const { judge: _j, ...bare } = qnaRun('y', 'q1', 'm1', true, D1);
  const missing = await post('c', [bare]);
  expect(missing.status).toBe(422);
  expect(JSON.stringify(missing.body)).toContain('body/runs/0/judge');
  const { answerDate: _d, ...undated } = qnaRun('z', 'q1', 'm1', true, D1);
  expect((await post('c', [undated])).status).toBe(422);
  expect((await post('c', [{ ...sweRun('w', 'm1', true), judge: { digest: D1 } }])).status).toBe(422);
  // A run's judge is its digest alone: another key is a 400 naming it, not dropped.
  const extra = await post('c', [{ ...qnaRun('v', 'q1', 'm1', true, D1), judge: { digest: D1, model: 'x' } }]);
  expect(extra.status).toBe(400);
  expect(JSON.stringify(extra.body)).toContain('body/runs/0/judge/model');
  expect(await staleOf('c')).toEqual({});
});

async function snapshot(id: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/competitions/${id}/snapshots`,
    headers: admin,
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(201);
  const seq = (JSON.parse(res.body) as { seq: number }).seq;
  const input = (await t.app.inject({ method: 'GET', url: `/v1/competitions/${id}/snapshots/${seq}/input` })).body;
  return { document: res.body, input };
}

it('a snapshot binds the judge digest, carries the configuration in its input, leaves stale runs out, and verifies', async () => {
  expect((await putJudge('c', J1)).status).toBe(200);
  await postOk('c', [qnaRun('a1', 'q1', 'm1', true, D1), sweRun('s1', 'm2', true)]);
  expect((await putJudge('c', J2)).status).toBe(200);
  await postOk('c', [qnaRun('b1', 'q1', 'm2', true, D2), qnaRun('b2', 'q2', null, false, D2)]);
  const taken = await snapshot('c');
  expect(JSON.parse(taken.document)).toMatchObject({ settings: { judgeDigest: D2 } });
  const head = JSON.parse(taken.input.split('\n')[0]!) as { competition: { judge: unknown } };
  expect(head.competition.judge).toEqual({ ...J2, digest: D2 });
  expect(taken.input).not.toContain('"a1"');
  const publicKeyPem = (await t.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
  const result = verifySnapshot({ snapshot: taken.document, input: taken.input, publicKeyPem });
  expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
  expect(result.ok).toBe(true);
  // A snapshot claiming another judge does not verify.
  const doc = JSON.parse(taken.document) as { settings: Record<string, unknown> };
  doc.settings.judgeDigest = D1;
  const forged = verifySnapshot({ snapshot: JSON.stringify(doc), input: taken.input });
  const failed = forged.checks.filter((c) => c.ok === false).map((c) => c.message);
  expect(failed.some((m) => m.includes(`settings.judgeDigest is "${D1}"`))).toBe(true);
});

it('a validator’s stale runs leave its activity and agreement until the configuration returns', async () => {
  const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'grader' } });
  expect(v.status).toBe(201);
  const headers = { authorization: `Bearer ${v.body.apiKey as string}` };
  const runsOf = async () => {
    const res = await t.call({ method: 'GET', url: '/v1/competitions/c/validators' });
    expect(res.status).toBe(200);
    return (res.body.validators as { id: string; runs: number }[]).find((x) => x.id === v.body.id)?.runs ?? 0;
  };
  expect((await putJudge('c', J1)).status).toBe(200);
  const sent = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers,
    payload: {
      runs: [qnaRun('v1', 'q1', 'm1', true, D1), qnaRun('v2', 'q2', null, true, D1), sweRun('v3', 'm1', true)],
    },
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  expect(await runsOf()).toBe(3);
  expect((await putJudge('c', J2)).status).toBe(200);
  expect(await runsOf()).toBe(1);
  expect((await putJudge('c', J1)).status).toBe(200);
  expect(await runsOf()).toBe(3);
});

it('a task read gives each criterion’s judgeTitle, without its numbering, beside its title', async () => {
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q1', headers: admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.criteria).toMatchObject([
    { title: '1.1: names resetBudget', judgeTitle: 'names resetBudget' },
    { title: '1.2: does not blame the client', judgeTitle: 'does not blame the client' },
  ]);
  const anonymous = await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q1' });
  expect(anonymous.body.criteria[0]).not.toHaveProperty('judgeTitle');
});

it('no votes, or more than 15, on a criterion: a 400 at the votes that says how many a criterion has', async () => {
  expect((await putJudge('c', J1)).status).toBe(200);
  for (const count of [0, 16]) {
    const run = qnaRun(`v${count}`, 'q1', 'm1', true, D1);
    run.rubricVotes[0]!.votes = Array.from({ length: count }, () => ({ verdict: 'YES' }));
    const res = await post('c', [run]);
    expect(res.status, String(count)).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('body/runs/0/rubricVotes/0/votes');
    expect(res.body.detail).toContain("exactly the judge configuration's votes (judgeVotes");
  }
  expect(await staleOf('c')).toEqual({});
});

it('a criterion title that is only its numbering is a 400 naming it: the judge would be shown nothing', async () => {
  const bare = { ...qna, rubric: [rubric[0], { ...rubric[1], title: '1.2:' }] };
  const res = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'q3', type: 'swe_atlas_qna', complexity: 'short', qna: bare }] },
  });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body.errors)).toContain('body/tasks/0/qna/rubric/1/title');
  expect(res.body.detail).toContain('has nothing after its numbering');
  expect((await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q3', headers: admin })).status).toBe(404);
});

it('a QnA run sent before any judge was set is stale under every judge: scored, reported and covered nowhere', async () => {
  // Sent while the competition held no judge configuration (allowed then): no digest.
  const { judge: _j, answerDate: _d, ...before } = qnaRun('old', 'q1', 'm1', true, D1);
  const resolvedOnly = {
    runId: 'old-r',
    taskId: 'q2',
    kind: 'baseline',
    resolved: true,
    tokens: { input: 9, output: 9 },
  };
  const swe = [sweRun('s1', 'm1', false), sweRun('s2', 'm2', true), sweRun('s3', null, true)];
  await postOk('c', [before, resolvedOnly, ...swe]);
  expect(await staleOf('c')).toMatchObject({ old: false, 'old-r': false });

  expect((await putJudge('c', J1)).status).toBe(200);
  expect((await putJudge('ref', J1)).status).toBe(200);
  await postOk('ref', swe);
  // SWE-bench runs never carry a digest and always count; the QnA runs without one do not.
  expect(await staleOf('c')).toEqual({ old: true, 'old-r': true, s1: false, s2: false, s3: false });
  expect(await board('c')).toEqual(await board('ref'));
  const cover = await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?miner=m1&task=q1' });
  expect(cover.body).toMatchObject({ pairs: [{ taskId: 'q1', miner: 'm1', have: 0 }] });
  const baseline = await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?miner=baseline&task=q2' });
  expect(baseline.body).toMatchObject({ pairs: [{ taskId: 'q2', miner: 'baseline', have: 0 }] });
  const report = await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' });
  expect(report.status).toBe(200);
  for (const g of report.body.groups as { pooled: { verdicts: number } }[]) expect(g.pooled.verdicts).toBe(0);
  const exported = await t.app.inject({ method: 'GET', url: '/v1/competitions/c/runs/export?format=ndjson' });
  const lines = exported.body
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { runId: string; stale: boolean });
  expect(Object.fromEntries(lines.map((l) => [l.runId, l.stale]))).toEqual(await staleOf('c'));

  // A deletion of a stale run takes nothing out of the aggregates.
  expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/old', headers: admin })).status).toBe(200);
  expect(await board('c')).toEqual(await board('ref'));

  const taken = await snapshot('c');
  expect(taken.input).not.toContain('"old-r"');
  const publicKeyPem = (await t.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
  const result = verifySnapshot({ snapshot: taken.document, input: taken.input, publicKeyPem });
  expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
});

it('a snapshot taken while QnA runs without a digest still counted under a judge reads back and verifies', async () => {
  expect((await putJudge('c', J1)).status).toBe(200);
  await postOk('c', [
    qnaRun('a1', 'q1', 'm1', true, D1),
    qnaRun('a2', 'q2', 'm2', false, D1),
    sweRun('s1', 'm2', true),
  ]);
  const taken = await snapshot('c');
  expect(taken.input).toContain('"a1"');
  // As a snapshot taken before such runs were stale holds them: its run a1 named no digest.
  await t.query("UPDATE runs SET judge_digest = NULL, answer_date = NULL WHERE run_id = 'a1'");
  const seq = (JSON.parse(taken.document) as { seq: number }).seq;
  const again = await t.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${seq}/input` });
  expect(again.body).toBe(taken.input);
  const publicKeyPem = (await t.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
  const result = verifySnapshot({ snapshot: taken.document, input: again.body, publicKeyPem });
  expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
});

it('a grade carries the votes of the configuration it names; judgeVotes never disagrees with the one in force', async () => {
  /** A QnA run under `digest` with `n` votes on each criterion. */
  const voted = (runId: string, digest: string, n: number) => {
    const run = qnaRun(runId, 'q1', 'm1', true, digest);
    return { ...run, rubricVotes: run.rubricVotes.map((c) => ({ ...c, votes: Array(n).fill(c.votes[0]) })) };
  };
  const competition = async () => (await t.call({ method: 'GET', url: '/v1/competitions/c' })).body;
  expect((await putJudge('c', J1)).status).toBe(200);
  // The competition's judgeVotes is the votes of the judge in force: a PUT that would part them is refused.
  const parted = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: admin,
    payload: { name: 'c', judgeVotes: 5 },
  });
  expect(parted.status, JSON.stringify(parted.body)).toBe(409);
  expect(JSON.stringify(parted.body)).toContain('/judge');
  expect(await competition()).toMatchObject({ judgeVotes: 3 });
  const same = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: admin,
    payload: { name: 'c', judgeVotes: 3 },
  });
  expect(same.status).toBe(200);
  // The judge in force sent again is no change.
  expect((await putJudge('c', J1)).body).toMatchObject({ digest: D1, version: 1 });

  // A configuration with other votes changes both.
  const J5 = { ...J1, votes: 5 };
  const D5 = digestOf(J5);
  const five = await putJudge('c', J5);
  expect(five.status, JSON.stringify(five.body)).toBe(200);
  expect(five.body).toMatchObject({ digest: D5, votes: 5 });
  expect(await competition()).toMatchObject({ judgeVotes: 5 });
  // Each run's vote count is that of the configuration it names.
  const three = await post('c', [voted('r3', D5, 3)]);
  expect(three.status).toBe(422);
  expect(JSON.stringify(three.body)).toContain('expected 5');
  await postOk('c', [voted('r5', D5, 5), voted('old3', D1, 3)]);
  const oldFive = await post('c', [voted('old5', D1, 5)]);
  expect(oldFive.status).toBe(422);
  expect(JSON.stringify(oldFive.body)).toContain('expected 3');
  // An identical resend is a duplicate.
  expect((await post('c', [voted('r5', D5, 5)])).body).toMatchObject({ accepted: 0, duplicates: 1 });
  expect(await staleOf('c')).toEqual({ r5: false, old3: true });
});

it('an identical resend of a stored run is a duplicate whatever changed in the settings since; other content is refused', async () => {
  const { judge: _j, answerDate: _d, ...before } = qnaRun('old', 'q1', 'm1', true, D1);
  await postOk('c', [before, sweRun('s1', 'm1', true)]);
  // A judge of five votes set since: the stored run names none and has three votes a criterion.
  expect((await putJudge('c', { ...J1, votes: 5 })).status).toBe(200);
  const again = await post('c', [before, sweRun('s1', 'm1', true)]);
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  expect(again.body).toEqual({ accepted: 0, duplicates: 2 });
  // Other content under the same id is still refused, and nothing is stored.
  const other = await post('c', [{ ...before, tokens: { input: 1, output: 1 } }]);
  expect(other.status).toBe(422);
  const mixed = await post('c', [before, { ...sweRun('s1', 'm1', false) }]);
  expect(mixed.status).toBe(409);
  expect(await staleOf('c')).toEqual({ old: true, s1: false });
});
