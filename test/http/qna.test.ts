// SPEC 7 through the API: QnA runs graded from hand-built judge votes on a small task.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const [P1, P2, N1, N2] = ['a', 'b', 'c', 'd'].map((d) => d.repeat(32)) as [string, string, string, string];
const RUBRIC = [
  [P1, 'positive'],
  [P2, 'positive'],
  [N1, 'negative'],
  [N2, 'negative'],
] as const;
const qna = {
  prompt: 'How does the scheduler hand work to the graceful handler?',
  referenceAnswer: 'Through iterateSteps.',
  repositoryUrl: 'grafana/k6',
  repositoryBaseCommit: 'e'.repeat(40),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric: RUBRIC.map(([id, type], i) => ({
    id,
    type,
    title: `1.${i + 1}: criterion ${type}`,
    importance: 'must have',
  })),
};

let t: TestApp;
let key: string;
beforeEach(async () => {
  t = await testApp();
  key = (await seedCompetition(t, 'c')).validatorKey;
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: {
      tasks: [
        { id: 'q', type: 'swe_atlas_qna', qna },
        { id: 'swe', type: 'swebench_verified' },
      ],
    },
  });
});
afterEach(async () => t.close());

/** `yes` YES votes out of `total`, for one criterion. */
const cv = (criterionId: string, yes: number, total = 5) => ({
  criterionId,
  votes: Array.from({ length: total }, (_, i) => ({ verdict: i < yes ? 'YES' : 'NO' })),
});
/** YES counts for P1, P2, N1, N2 (each of 5 votes). */
const votes = (p1: number, p2: number, n1: number, n2: number) => [cv(P1, p1), cv(P2, p2), cv(N1, n1), cv(N2, n2)];
const PASS = votes(5, 5, 0, 0);

const post = (runs: object[], c = 'c') =>
  t.call({
    method: 'POST',
    url: `/v1/competitions/${c}/runs`,
    headers: { authorization: `Bearer ${key}` },
    payload: { runs },
  });
/** As the admin reads it: with the answer key (criterion ids, the judge's reasons; test/http/answerKeys.test.ts). */
const getRun = (id: string, c = 'c') =>
  t.call({ method: 'GET', url: `/v1/competitions/${c}/runs/${id}`, headers: admin });
const runCount = async (c = 'c') =>
  (await t.call({ method: 'GET', url: `/v1/competitions/${c}` })).body.counts.runs as number;
const miner = (runId: string, rubricVotes: object[], extra: object = {}) => ({
  runId,
  taskId: 'q',
  kind: 'miner',
  minerHotkey: 'm1',
  rubricVotes,
  ...extra,
});

describe('QnA grading (SPEC 7)', () => {
  it('derives verdict, met and split per criterion, and resolves only when every criterion is met', async () => {
    const res = await post([
      // 3-2 YES on a positive (met, split); 2-3 on a negative (NO majority: met, split).
      miner('pass', votes(3, 5, 2, 0)),
      // Everything met but P2, voted 2-3: one criterion fails the run.
      miner('fail-positive', votes(5, 2, 0, 0)),
      // N2 voted 3-2 YES: the answer makes the forbidden claim, so the negative is not met.
      miner('fail-negative', votes(5, 5, 0, 3)),
    ]);
    expect(res.body).toEqual({ accepted: 3, duplicates: 0 });

    const pass = (await getRun('pass')).body;
    expect(pass.resolved).toBe(true);
    expect(pass.criteria).toEqual([
      { position: 0, criterionId: P1, yes: 3, no: 2, verdict: 'YES', met: true, split: true },
      { position: 1, criterionId: P2, yes: 5, no: 0, verdict: 'YES', met: true, split: false },
      { position: 2, criterionId: N1, yes: 2, no: 3, verdict: 'NO', met: true, split: true },
      { position: 3, criterionId: N2, yes: 0, no: 5, verdict: 'NO', met: true, split: false },
    ]);
    const failP = (await getRun('fail-positive')).body;
    expect(failP.resolved).toBe(false);
    expect(failP.criteria[1]).toEqual({
      position: 1,
      criterionId: P2,
      yes: 2,
      no: 3,
      verdict: 'NO',
      met: false,
      split: true,
    });
    expect(failP.criteria.filter((c: { met: boolean }) => !c.met)).toHaveLength(1);
    const failN = (await getRun('fail-negative')).body;
    expect(failN.resolved).toBe(false);
    expect(failN.criteria[3]).toEqual({
      position: 3,
      criterionId: N2,
      yes: 3,
      no: 2,
      verdict: 'YES',
      met: false,
      split: true,
    });
  });

  it("keeps each vote's reason and evidence", async () => {
    const withText = PASS.map((c, i) =>
      i === 0 ? { ...c, votes: c.votes.map((v, j) => ({ ...v, reason: `reason ${j}`, evidence: `"quote ${j}"` })) } : c,
    );
    await post([miner('r', withText)]);
    const run = (await getRun('r')).body;
    expect(run.rubricVotes).toEqual(withText.map((v, position) => ({ position, ...v })));
    expect(run.rubricVotes[0].votes[4]).toEqual({ verdict: 'YES', reason: 'reason 4', evidence: '"quote 4"' });
  });

  it('takes votes whatever the order of their keys: stored alike, and a resend in another order is a duplicate', async () => {
    const ordered = PASS.map((c) => ({
      ...c,
      votes: c.votes.map((v, j) => ({ ...v, reason: `r${j}`, evidence: `e${j}` })),
    }));
    // The same votes with every object's keys reversed: {evidence, reason, verdict}, {votes, criterionId}.
    const reversed = ordered.map((c) => ({
      votes: c.votes.map((v) => ({ evidence: v.evidence, reason: v.reason, verdict: v.verdict })),
      criterionId: c.criterionId,
    }));
    expect((await post([miner('a', reversed), miner('b', ordered)])).body).toEqual({ accepted: 2, duplicates: 0 });
    const [a, b] = [(await getRun('a')).body, (await getRun('b')).body];
    expect(JSON.stringify(a.rubricVotes)).toBe(JSON.stringify(b.rubricVotes));
    expect(Object.keys(a.rubricVotes[0].votes[0])).toEqual(['verdict', 'reason', 'evidence']);
    // Each resent in the other order: the same content.
    expect((await post([miner('a', ordered), miner('b', reversed)])).body).toEqual({ accepted: 0, duplicates: 2 });
  });

  // The path names the entry at fault (it named only rubricVotes, whichever entry it was).
  const rejected: [string, () => object, RegExp, string][] = [
    [
      'votes on a non-QnA task',
      () => ({ ...miner('x', PASS), taskId: 'swe' }),
      /run x on task swe: votes sent for a task without a rubric/,
      'rubricVotes',
    ],
    [
      'a missing criterion',
      () => miner('x', PASS.slice(0, 3)),
      new RegExp(`run x on task q: criterion ${N2} has no votes`),
      'rubricVotes',
    ],
    [
      'an unknown criterion',
      () => miner('x', [...PASS, cv('f'.repeat(32), 5)]),
      new RegExp(`run x on task q: criterion f{32} is not in the task's rubric`),
      'rubricVotes/4/criterionId',
    ],
    [
      'a repeated criterion',
      () => miner('x', [...PASS, cv(P1, 5)]),
      new RegExp(`run x on task q: criterion ${P1} is voted on more than once`),
      'rubricVotes/4/criterionId',
    ],
    [
      'the wrong number of votes',
      () => miner('x', [cv(P1, 3, 3), ...PASS.slice(1)]),
      new RegExp(`run x on task q: criterion ${P1} has the wrong number of votes \\(3, expected 5\\)`),
      'rubricVotes/0/votes',
    ],
    [
      'a resolved contradicting the votes',
      () => miner('x', votes(5, 2, 0, 0), { resolved: true }),
      /run x on task q: resolved true contradicts the votes, which give false/,
      'resolved',
    ],
  ];

  it.each(rejected)(
    'rejects %s with a 422 naming run and criterion, storing nothing',
    async (_name, run, message, at) => {
      // A valid run in the same batch: the whole batch is rejected.
      const res = await post([miner('ok', PASS), run()]);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(message);
      expect(res.body.errors[0].path).toBe(`body/runs/1/${at}`);
      expect(await runCount()).toBe(0);
      expect((await getRun('ok')).status).toBe(404);
    },
  );

  it("counts votes against the competition's judgeVotes", async () => {
    await seedCompetition(t, 'three', { name: 'Three votes', judgeVotes: 3 });
    await t.call({
      method: 'PUT',
      url: '/v1/competitions/three/tasks',
      headers: admin,
      payload: { tasks: [{ id: 'q', type: 'swe_atlas_qna', qna }] },
    });
    const five = await post([miner('x', PASS)], 'three');
    expect(five.status).toBe(422);
    expect(five.body.detail).toContain(`criterion ${P1} has the wrong number of votes (5, expected 3)`);
    expect(await runCount('three')).toBe(0);
    const three = [cv(P1, 2, 3), cv(P2, 3, 3), cv(N1, 1, 3), cv(N2, 0, 3)];
    expect((await post([miner('y', three)], 'three')).body.accepted).toBe(1);
    expect((await getRun('y', 'three')).body.resolved).toBe(true);
  });

  it('reports per-criterion statistics on the task and resolve rates on the leaderboard and competition', async () => {
    await post([
      miner('m1-a', votes(3, 5, 2, 0)), // resolved; P1 and N1 split
      miner('m1-b', votes(5, 2, 0, 0)), // P2 not met, split
      miner('m1-c', PASS), // resolved, unanimous
      { ...miner('m2-a', votes(5, 5, 0, 3)), minerHotkey: 'm2' }, // N2 not met, split
      { ...miner('m2-b', PASS), minerHotkey: 'm2', resolved: true }, // agreeing `resolved` is accepted
      { runId: 'b-a', taskId: 'q', kind: 'baseline', rubricVotes: PASS },
      { runId: 'b-b', taskId: 'q', kind: 'baseline', rubricVotes: votes(4, 5, 0, 1) }, // resolved, 4-1 splits
      { runId: 'b-c', taskId: 'q', kind: 'baseline', rubricVotes: votes(1, 5, 0, 0) }, // P1 not met
      // Sent with `resolved` only: counts for the resolve rate, not for criterion statistics.
      { runId: 'b-d', taskId: 'q', kind: 'baseline', resolved: true },
    ]);
    const view = (await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q', headers: admin })).body;
    expect(
      view.criteria.map(({ title: _title, judgeTitle: _judge, ...c }: { title: string; judgeTitle: string }) => c),
    ).toEqual([
      { position: 0, id: P1, type: 'positive', change: null, graded: 8, metRate: 7 / 8, splitRate: 3 / 8 },
      { position: 1, id: P2, type: 'positive', change: null, graded: 8, metRate: 7 / 8, splitRate: 1 / 8 },
      { position: 2, id: N1, type: 'negative', change: null, graded: 8, metRate: 1, splitRate: 1 / 8 },
      { position: 3, id: N2, type: 'negative', change: null, graded: 8, metRate: 7 / 8, splitRate: 2 / 8 },
    ]);
    // The public read keeps the rates, by position, and leaves out the answer key.
    const open = (await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q' })).body;
    expect(open.answersRevealed).toBe(false);
    expect(open.qna).not.toHaveProperty('referenceAnswer');
    expect(open.criteria).toEqual(
      view.criteria.map(
        ({ id: _id, title: _title, judgeTitle: _judge, ...c }: { id: string; title: string; judgeTitle: string }) => c,
      ),
    );
    expect(view.baseline).toMatchObject({ runs: 4, resolved: 3, resolveRate: 3 / 4 });

    const board = (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body;
    const rate = Object.fromEntries(
      board.miners.map((m: { hotkey: string; resolveRate: number }) => [m.hotkey, m.resolveRate]),
    );
    expect(rate).toEqual({ m1: 2 / 3, m2: 1 / 2 });
    expect(board.baseline).toEqual({ runs: 4, resolved: 3, resolveRate: 3 / 4 });
    const competition = (await t.call({ method: 'GET', url: '/v1/competitions/c' })).body;
    expect(competition.baseline).toEqual({ runs: 4, resolved: 3, resolveRate: 3 / 4 });
  });
});
