// SPEC 7 and 12 against an independent reading, on small random QnA competitions: random judge
// votes (majority, polarity, split), judge configurations of 3 and 5 votes set and returned to
// mid-competition, runs graded under each, deletions and an excluded miner. After every write the
// derived `resolved` of each run, the leaderboard (./specOracle.ts on the counted runs), coverage
// and the criteria stability report are compared with what the rules give by hand.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { prng } from '../support/prng.js';
import { oracle, type ORun, type OTask } from './specOracle.js';

const judge = (votes: number, model: string) => ({
  model,
  reasoningEffort: 'high',
  votes,
  temperature: 0,
  promptTemplate: 'Q: {question}\nA ({answer_date}): {answer}\nC: {criterion}',
  outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } } },
});
const JUDGES = [judge(3, 'a'), judge(5, 'b'), judge(3, 'c')];
const digestOf = (j: object) => createHash('sha256').update(canonicalJson(j), 'utf8').digest('hex');
const DIGESTS = JUDGES.map(digestOf);
const CHANGES = [null, 'stability', 'precision', 'scale-correction'] as const;

let t: TestApp;
afterEach(async () => t?.close());

interface Criterion {
  id: string;
  type: 'positive' | 'negative';
  change: (typeof CHANGES)[number];
}
interface QRun {
  runId: string;
  taskId: string;
  hotkey: string | null;
  digest: string;
  /** YES counts per criterion, in rubric order, out of the judge's votes. */
  yes: number[];
  votes: number;
  input: number;
}

/** SPEC 7 by hand: majority per criterion, polarity after the vote, resolved when all are met. */
function grade(rubric: Criterion[], run: QRun) {
  const criteria = rubric.map((c, i) => {
    const yes = run.yes[i]!;
    const verdict = yes > run.votes - yes ? 'YES' : 'NO';
    return { met: c.type === 'positive' ? verdict === 'YES' : verdict === 'NO', split: yes > 0 && yes < run.votes };
  });
  return { criteria, resolved: criteria.every((c) => c.met) };
}

async function competition(seed: number) {
  const rng = prng(seed);
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'QnA', judgeVotes: 3 });
  const rubrics = new Map<string, Criterion[]>();
  const tasks: OTask[] = [];
  for (let i = 0; i < rng.int(2, 4); i++) {
    const id = `q${i}`;
    const rubric = Array.from({ length: rng.int(1, 3) }, (_, k) => ({
      id: `${i}${k}`.padEnd(32, 'f'),
      type: rng.pick(['positive', 'negative'] as const),
      change: rng.pick(CHANGES),
    }));
    rubrics.set(id, rubric);
    tasks.push({ id, stage: 'evaluation', complexity: rng.pick(['short', 'long', null] as const), plannedRuns: null });
  }
  const payload = {
    tasks: tasks.map((task) => ({
      id: task.id,
      type: 'swe_atlas_qna',
      complexity: task.complexity,
      qna: {
        prompt: 'Why?',
        referenceAnswer: 'Because.',
        repositoryUrl: 'acme/widgets',
        repositoryBaseCommit: 'f'.repeat(40),
        language: 'go',
        category: 'Root-cause analysis',
        dockerImage: 'img:1',
        rubric: rubrics.get(task.id)!.map((c, k) => ({
          id: c.id,
          type: c.type,
          title: `1.${k + 1}: criterion ${k}`,
          importance: 'must have',
          ...(c.change ? { change: c.change } : {}),
        })),
      },
    })),
  };
  expect((await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload })).status).toBe(200);
  const miners = ['m1', 'm2', 'm3'];
  const runs: QRun[] = [];
  const excluded = new Set<string>();
  let current = 0;
  let next = 0;
  const setJudge = async (j: number) => {
    const res = await t.call({ method: 'PUT', url: '/v1/competitions/c/judge', headers: admin, payload: JUDGES[j] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    current = j;
  };
  await setJudge(0);
  const post = async (n: number) => {
    const list: QRun[] = [];
    for (let i = 0; i < n; i++) {
      const task = rng.pick(tasks);
      const votes = JUDGES[current]!.votes;
      // Mostly clear verdicts, sometimes a split one.
      const yes = rubrics.get(task.id)!.map(() => (rng.chance(0.3) ? rng.int(0, votes) : rng.pick([0, votes])));
      list.push({
        runId: `r${next++}`,
        taskId: task.id,
        hotkey: rng.chance(0.3) ? null : rng.pick(miners),
        digest: DIGESTS[current]!,
        yes,
        votes,
        input: rng.int(500, 1500),
      });
    }
    const body = {
      runs: list.map((r) => ({
        runId: r.runId,
        taskId: r.taskId,
        ...(r.hotkey ? { kind: 'miner', minerHotkey: r.hotkey } : { kind: 'baseline' }),
        tokens: { input: r.input, output: 50 },
        rubricVotes: rubrics.get(r.taskId)!.map((c, k) => ({
          criterionId: c.id,
          votes: Array.from({ length: r.votes }, (_, v) => ({ verdict: v < r.yes[k]! ? 'YES' : 'NO' })),
        })),
        judge: { digest: r.digest },
        answerDate: '2026-11-30',
      })),
    };
    const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    runs.push(...list);
  };

  const check = async (label: string) => {
    const counted = runs.filter((r) => r.digest === DIGESTS[current]);
    const graded = new Map(runs.map((r) => [r.runId, grade(rubrics.get(r.taskId)!, r)]));
    // Every run's derived result, stale or not.
    const listed = (await t.call({ method: 'GET', url: '/v1/competitions/c/runs?limit=1000' })).body.runs as {
      runId: string;
      resolved: boolean;
      stale: boolean;
    }[];
    expect(Object.fromEntries(listed.map((r) => [r.runId, [r.resolved, r.stale]])), label).toEqual(
      Object.fromEntries(runs.map((r) => [r.runId, [graded.get(r.runId)!.resolved, r.digest !== DIGESTS[current]]])),
    );
    // SPEC 3-6 over the counted runs alone.
    const oruns: ORun[] = counted.map((r) => ({
      taskId: r.taskId,
      hotkey: r.hotkey,
      resolved: graded.get(r.runId)!.resolved,
      tokens: { input: r.input, output: 50 },
    }));
    const want = oracle({
      tasks,
      runs: oruns,
      excluded,
      stages: ['evaluation'],
      burnRatio: 0,
      w: { input: 1, cachedInput: 0.1, output: 3 },
    });
    const lb = (await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' })).body.miners as {
      hotkey: string;
      rank: number | null;
      runs: number;
      resolveRate: number | null;
    }[];
    expect(
      lb.filter((m) => m.rank !== null).map((m) => [m.hotkey, m.rank]),
      label,
    ).toEqual(want.board.filter((m) => m.rank !== null).map((m) => [m.hotkey, m.rank]));
    // SPEC 7 Task Resolve Rate per miner over its counted runs.
    for (const m of lb.filter((x) => !excluded.has(x.hotkey))) {
      const own = counted.filter((r) => r.hotkey === m.hotkey);
      expect([m.runs, m.resolveRate], `${label} ${m.hotkey}`).toEqual([
        own.length,
        own.length === 0 ? null : own.filter((r) => graded.get(r.runId)!.resolved).length / own.length,
      ]);
    }
    // SPEC 13 have: counted runs only.
    const cover = (await t.call({ method: 'GET', url: '/v1/competitions/c/coverage?miner=baseline' })).body;
    expect(
      cover.pairs.map((p: { have: number }) => p.have),
      label,
    ).toEqual(
      [...tasks]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((task) => counted.filter((r) => r.taskId === task.id && r.hotkey === null).length),
    );
    // SPEC 12 stability report: per (change, polarity), criteria, verdicts, met and split (pooled, baseline).
    const report = (await t.call({ method: 'GET', url: '/v1/competitions/c/criteria/report' })).body;
    const groups = new Map<string, { criteria: number; pooled: number[]; baseline: number[] }>();
    for (const change of CHANGES)
      for (const polarity of ['positive', 'negative'])
        for (const task of tasks)
          rubrics.get(task.id)!.forEach((c, k) => {
            if (c.change !== change || c.type !== polarity) return;
            const key = `${change}/${polarity}`;
            const g = groups.get(key) ?? { criteria: 0, pooled: [0, 0, 0], baseline: [0, 0, 0] };
            groups.set(key, g);
            g.criteria++;
            // SPEC 6: an excluded miner's runs take part in nothing, the report included.
            for (const r of counted.filter(
              (x) => x.taskId === task.id && (x.hotkey === null || !excluded.has(x.hotkey)),
            )) {
              const v = graded.get(r.runId)!.criteria[k]!;
              for (const into of r.hotkey === null ? [g.pooled, g.baseline] : [g.pooled]) {
                into[0]! += 1;
                if (v.met) into[1]! += 1;
                if (v.split) into[2]! += 1;
              }
            }
          });
    const got = (
      report.groups as {
        change: string | null;
        polarity: string;
        criteria: number;
        pooled: Record<string, number>;
        baseline: Record<string, number>;
      }[]
    ).map((g) => [
      `${g.change}/${g.polarity}`,
      g.criteria,
      [g.pooled.verdicts, g.pooled.met, g.pooled.split],
      [g.baseline.verdicts, g.baseline.met, g.baseline.split],
    ]);
    expect(got, label).toEqual([...groups].map(([k, g]) => [k, g.criteria, g.pooled, g.baseline]));
    for (const g of report.groups as { miners: Record<string, unknown> }[])
      expect(
        Object.keys(g.miners).filter((h) => excluded.has(h)),
        label,
      ).toEqual([]);
  };

  await post(rng.int(4, 12));
  await check(`seed ${seed} start`);
  for (let step = 0; step < 8; step++) {
    const op = rng.int(0, 4);
    let label = `seed ${seed} step ${step}`;
    if (op === 0) {
      const j = rng.below(JUDGES.length);
      label += ` judge ${j}`;
      await setJudge(j);
    } else if (op === 1 && runs.length > 0) {
      const [gone] = runs.splice(rng.below(runs.length), 1);
      label += ` delete ${gone!.runId}`;
      expect(
        (await t.call({ method: 'DELETE', url: `/v1/competitions/c/runs/${gone!.runId}`, headers: admin })).status,
      ).toBe(200);
    } else if (op === 2) {
      const m = rng.pick(miners);
      const on = !excluded.has(m);
      label += ` ${on ? 'exclude' : 'include'} ${m}`;
      if (on) excluded.add(m);
      else excluded.delete(m);
      const res = await t.call({
        method: 'PUT',
        url: `/v1/competitions/c/miners/${m}`,
        headers: admin,
        payload: { excluded: on },
      });
      expect([200, 201]).toContain(res.status);
    } else {
      label += ' more runs';
      await post(rng.int(1, 8));
    }
    await check(label);
  }
}

describe('QnA grading and the judge against an independent reading of SPEC 7 and 12', () => {
  for (let seed = 1; seed <= Number(process.env.ORACLE_SEEDS ?? 8); seed++)
    it(`random QnA competition, seed ${seed}`, () => competition(seed), 60_000);
});
