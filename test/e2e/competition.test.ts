// End to end over a real port with the generated client: every expected number below is worked
// out by hand from SPEC.md (default token weights 1 / 0.1 / 3, burnRatio 0.2), never by src/scoring.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScoringClient, type components, type ScoringClient } from '../../src/client/index.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

type RunIn = components['schemas']['RunResultInput'];
type Tokens = RunIn['tokens'];
const C = 'e2e';
const path = { competitionId: C };

/** Tokens whose weighted count is T: (T - 13)·1 + 10·0.1 + 4·3 = T. */
const tk = (T: number): Tokens => ({ input: T - 13, cachedInput: 10, output: 4 });
/** Five runs on a task, the first `y` resolved; `T` one weighted count for all, or per run. */
function five(task: string, who: string, y: number, T: number | Tokens[]): RunIn[] {
  return [0, 1, 2, 3, 4].map((i) => ({
    runId: `${task}.${who}.${i}`,
    taskId: task,
    attemptNo: i,
    resolved: i < y,
    ...(who === 'base' ? { kind: 'baseline' as const } : { kind: 'miner' as const, minerHotkey: who }),
    // Unresolved baseline runs carry a huge count: T_B covers resolved runs only.
    tokens: Array.isArray(T) ? T[i]! : who === 'base' && i >= y ? tk(5000) : tk(T),
  }));
}

/** Deep comparison: numbers to 12 decimals, everything else exactly. */
function expectClose(actual: unknown, expected: unknown, at = '$'): void {
  if (typeof expected === 'number') {
    expect(typeof actual, at).toBe('number');
    expect(actual as number, at).toBeCloseTo(expected, 12);
  } else if (expected !== null && typeof expected === 'object') {
    expect(actual, at).toBeTypeOf('object');
    if (Array.isArray(expected)) expect((actual as unknown[]).length, `${at}.length`).toBe(expected.length);
    for (const [k, v] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], v, `${at}.${k}`);
  } else {
    expect(actual, at).toEqual(expected);
  }
}

// ---- The hand computation (SPEC 3-6). n = 5 everywhere (5 baseline runs, 5 runs per miner). ----
const wS1 = Math.cbrt(4),
  wM1 = Math.cbrt(5),
  wL1 = Math.cbrt(3); // x^(1/3) of the main tasks S1, M1, L1
const W = wS1 + wM1 + wL1;
// alice: S1 maintain r = log2(200/100) = 1; S2 hard x = y = 1, maintain r = log2(300/150) = 1, h = 1;
// M1 maintain r = log2(100/100) = 0; M2 y = 0 excluded; L1 maintain r = clamp(log2(100/800) = -3) = -2; L2 no baseline.
const aSM = (1 * wS1 + 0 * wM1 + -2 * wL1) / W;
const aBH = 1 / (3 + 1);
const aSN = (2 * (aSM + aBH) + 1) / 7;
const aG = { short: (2 * (1 + 1 / (1 + 1)) + 1) / 7, medium: (2 * 0 + 1) / 7, long: (2 * -2 + 1) / 7 }; // 4/7, 1/7, -3/7
// bob: S1 y = 1 < t = floor(3.2) = 3, penalty -2 - 2(1 - 1/3); S2 bonus log2(300/600) + (3-1)/(5-1) = -0.5, h = 0;
// M1 maintain log2(100/25) = 2; M2 x = 0 bonus (2-0)/(5-0) = 0.4, h = 0.4; L1 bonus clamp(2 + (5-3)/(5-3), -2, 3) = 3.
const bS1 = -2 - 2 * (1 - 1 / 3);
const bSM = (bS1 * wS1 + 2 * wM1 + 3 * wL1) / W;
const bBH = (0 + 0.4) / (3 + 2);
const bSN = (2 * (bSM + bBH) + 1) / 7;
const bG = { short: (2 * (bS1 + 0 / 2) + 1) / 7, medium: (2 * (2 + 0.4 / 2) + 1) / 7, long: (2 * 3 + 1) / 7 }; // -17/21, 5.4/7, 1
// carol: S1 bonus, T_A = (100+200+150+170+180)/5 = 160, r = log2(200/160), s = r + (5-4)/(5-4); S2 y = 0 excluded;
// M1 y = 2 < t = 4 penalty -2 - 2(1 - 2/4) = -3; M2 bonus (1-0)/(5-0) = 0.2; L1 maintain, T_A = 50 (the 0-token and
// null-token runs are not valid counts), r = log2(100/50) = 1.
const cR1 = Math.log2(200 / 160);
const cS1 = cR1 + 1;
const cSM = (cS1 * wS1 + -3 * wM1 + 1 * wL1) / W;
const cBH = 0.2 / (3 + 1);
const cSN = (2 * (cSM + cBH) + 1) / 7;
const cG = { short: (2 * cS1 + 1) / 7, medium: (2 * (-3 + 0.2 / 2) + 1) / 7, long: (2 * 1 + 1) / 7 }; // 0.5206, -4.8/7, 3/7

let server: ServerProcess;
let tmp: TempDir;
let adminC: ScoringClient, v1: ScoringClient, v2: ScoringClient, pub: ScoringClient;
const leaderboard = async (stages?: string) =>
  (await pub.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path, query: { stages } } })).data!;
const weights = async () => (await pub.GET('/v1/competitions/{competitionId}/weights', { params: { path } })).data!;

beforeAll(async () => {
  tmp = tempDir('e2e');
  server = await startServer({ dbPath: `${tmp.dir}/scoring.db` });
  adminC = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
  pub = createScoringClient(server.baseUrl);
  expect(
    (await adminC.PUT('/v1/competitions/{competitionId}', { params: { path }, body: { name: 'E2E', burnRatio: 0.2 } }))
      .response.status,
  ).toBe(201);
  const tasks = await adminC.PUT('/v1/competitions/{competitionId}/tasks', {
    params: { path },
    body: {
      tasks: [
        { id: 'S1', type: 'swebench_verified', stage: 'evaluation', complexity: 'short' },
        // Complexity is accepted in any case, trimmed (API.md); the generated type only lists the stored form.
        { id: 'S2', type: 'swebench_verified', stage: 'screener_2', complexity: ' Short ' as 'short' },
        { id: 'M1', type: 'swebench_verified', complexity: 'medium' },
        { id: 'M2', type: 'swebench_verified', stage: 'screener_2', complexity: 'MEDIUM' as 'medium' },
        { id: 'L1', type: 'swebench_verified', complexity: 'long' },
        { id: 'L2', type: 'swebench_verified', complexity: 'long' },
        { id: 'X1', type: 'swebench_verified', stage: 'screener_1', complexity: 'short' },
      ],
    },
  });
  expect(tasks.response.status).toBe(200);
  const key = async (name: string) => (await adminC.POST('/v1/validators', { body: { name } })).data!.apiKey;
  v1 = createScoringClient(server.baseUrl, await key('v1'));
  v2 = createScoringClient(server.baseUrl, await key('v2'));
  const post = async (c: ScoringClient, runs: RunIn[]) => {
    const res = await c.POST('/v1/competitions/{competitionId}/runs', { params: { path }, body: { runs } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual({ accepted: runs.length, duplicates: 0 });
  };
  // Validator 1: every baseline run (L2 has none) and alice's runs.
  await post(v1, [
    ...five('S1', 'base', 4, 200),
    ...five('S2', 'base', 1, 300),
    ...five('M1', 'base', 5, 100),
    ...five('M2', 'base', 0, 100),
    ...five('L1', 'base', 3, 100),
    ...five('X1', 'base', 5, 100),
  ]);
  await post(v1, [
    ...five('S1', 'alice', 4, 100),
    ...five('S2', 'alice', 1, 150),
    ...five('M1', 'alice', 5, 100),
    ...five('M2', 'alice', 0, 100),
    ...five('L1', 'alice', 2, 800),
    ...five('L2', 'alice', 3, 100),
    ...five('X1', 'alice', 5, 100),
  ]);
  // Validator 2: bob and carol.
  await post(v2, [
    ...five('S1', 'bob', 1, 100),
    ...five('S2', 'bob', 3, 600),
    ...five('M1', 'bob', 4, 25),
    ...five('M2', 'bob', 2, 100),
    ...five('L1', 'bob', 5, 25),
    ...five('L2', 'bob', 5, 100),
    ...five('X1', 'bob', 0, 100),
  ]);
  await post(v2, [
    ...five('S1', 'carol', 5, [tk(100), tk(200), tk(150), tk(170), tk(180)]),
    ...five('S2', 'carol', 0, 100),
    ...five('M1', 'carol', 2, 100),
    ...five('M2', 'carol', 1, 100),
    ...five('L1', 'carol', 3, [tk(50), tk(50), tk(50), { input: 0, cachedInput: 0, output: 0 }, null]),
    ...five('L2', 'carol', 2, 100),
    ...five('X1', 'carol', 5, 50),
  ]);
});

afterAll(async () => {
  await server?.stop('SIGTERM');
  tmp?.remove();
});

describe('a competition scored end to end', { timeout: 60_000 }, () => {
  it('counts tasks, miners and runs', async () => {
    const c = (await pub.GET('/v1/competitions/{competitionId}', { params: { path } })).data!;
    // Baseline 6 tasks x 5 runs; 3 miners x 7 tasks x 5 runs.
    expect(c.counts).toEqual({ tasks: 7, miners: 3, runs: 6 * 5 + 3 * 7 * 5 });
  });

  it('ranks the miners over screener_2 and evaluation', async () => {
    const lb = await leaderboard();
    expect(lb.stages).toEqual(['screener_2', 'evaluation']);
    // Baseline over S1, S2, M1, M2, L1, L2: 25 runs, 4 + 1 + 5 + 0 + 3 resolved.
    expectClose(lb.baseline, { runs: 25, resolved: 13, resolveRate: 13 / 25 });
    expectClose(lb.miners, [
      {
        rank: 1,
        hotkey: 'bob',
        normalizedScore: bSN,
        rawTotal: bSM + bBH,
        mainScore: bSM,
        hardBoost: bBH,
        taskCounts: { main: 3, hardBoost: 2, excluded: 1 },
        groupScores: bG,
        runs: 30,
        resolvedRuns: 1 + 3 + 4 + 2 + 5 + 5,
        resolveRate: 20 / 30,
        incentive: { rawWeight: 0.6, finalWeight: 0.6 * 0.8 },
      },
      {
        rank: 2,
        hotkey: 'alice',
        normalizedScore: aSN,
        rawTotal: aSM + aBH,
        mainScore: aSM,
        hardBoost: aBH,
        taskCounts: { main: 3, hardBoost: 1, excluded: 2 },
        groupScores: aG,
        runs: 30,
        resolvedRuns: 4 + 1 + 5 + 0 + 2 + 3,
        resolveRate: 15 / 30,
        incentive: { rawWeight: 0.25, finalWeight: 0.25 * 0.8 },
      },
      {
        rank: 3,
        hotkey: 'carol',
        normalizedScore: cSN,
        rawTotal: cSM + cBH,
        mainScore: cSM,
        hardBoost: cBH,
        taskCounts: { main: 3, hardBoost: 1, excluded: 2 },
        groupScores: cG,
        runs: 30,
        resolvedRuns: 5 + 0 + 2 + 1 + 3 + 2,
        resolveRate: 13 / 30,
        incentive: { rawWeight: 0.15, finalWeight: 0.15 * 0.8 },
      },
    ]);
  });

  it('breaks one miner down by task', async () => {
    const m = (
      await pub.GET('/v1/competitions/{competitionId}/miners/{hotkey}', {
        params: { path: { ...path, hotkey: 'carol' } },
      })
    ).data!;
    expectClose(m, {
      hotkey: 'carol',
      rank: 3,
      normalizedScore: cSN,
      tasks: [
        {
          taskId: 'L1',
          stage: 'evaluation',
          complexity: 'long',
          runs: 5,
          x: 3,
          y: 3,
          n: 5,
          threshold: 2,
          baselineTokens: 100,
          minerTokens: 50,
          r: 1,
          zone: 'maintain',
          pool: 'main',
          score: 1,
          weight: wL1,
          hardBoostContribution: null,
        },
        {
          taskId: 'L2',
          stage: 'evaluation',
          complexity: 'long',
          runs: 5,
          x: 0,
          y: 2,
          n: 5,
          threshold: 0,
          baselineTokens: null,
          minerTokens: 100,
          r: 0,
          zone: 'excluded',
          pool: 'excluded',
          score: null,
          weight: null,
          hardBoostContribution: null,
        },
        {
          taskId: 'M1',
          stage: 'evaluation',
          complexity: 'medium',
          runs: 5,
          x: 5,
          y: 2,
          n: 5,
          threshold: 4,
          baselineTokens: 100,
          minerTokens: 100,
          r: 0,
          zone: 'penalty',
          pool: 'main',
          score: -3,
          weight: wM1,
          hardBoostContribution: null,
        },
        {
          taskId: 'M2',
          stage: 'screener_2',
          complexity: 'medium',
          runs: 5,
          x: 0,
          y: 1,
          n: 5,
          threshold: 0,
          baselineTokens: null,
          minerTokens: 100,
          r: 0,
          zone: 'bonus',
          pool: 'hard_boost',
          score: 0.2,
          weight: null,
          hardBoostContribution: 0.2,
        },
        {
          taskId: 'S1',
          stage: 'evaluation',
          complexity: 'short',
          runs: 5,
          x: 4,
          y: 5,
          n: 5,
          threshold: 3,
          baselineTokens: 200,
          minerTokens: 160,
          r: cR1,
          zone: 'bonus',
          pool: 'main',
          score: cS1,
          weight: wS1,
          hardBoostContribution: null,
        },
        {
          taskId: 'S2',
          stage: 'screener_2',
          complexity: 'short',
          runs: 5,
          x: 1,
          y: 0,
          n: 5,
          threshold: 0,
          baselineTokens: 300,
          minerTokens: 100,
          r: Math.log2(300 / 100),
          zone: 'excluded',
          pool: 'excluded',
          score: null,
          weight: null,
          hardBoostContribution: null,
        },
      ],
    });
  });

  it('shows one task with its baseline and miners', async () => {
    const t = (
      await pub.GET('/v1/competitions/{competitionId}/tasks/{taskId}', { params: { path: { ...path, taskId: 'S1' } } })
    ).data!;
    expectClose(t, {
      id: 'S1',
      stage: 'evaluation',
      complexity: 'short',
      inStages: true,
      baseline: { runs: 5, resolved: 4, baselineTokens: 200, resolveRate: 4 / 5 },
      miners: [
        { hotkey: 'alice', runs: 5, y: 4, minerTokens: 100, r: 1, zone: 'maintain', pool: 'main', score: 1 },
        { hotkey: 'bob', runs: 5, y: 1, minerTokens: 100, r: 1, zone: 'penalty', pool: 'main', score: bS1 },
        { hotkey: 'carol', runs: 5, y: 5, minerTokens: 160, r: cR1, zone: 'bonus', pool: 'main', score: cS1 },
      ],
    });
  });

  it('splits the weights over the seven elements of short, medium and long', async () => {
    expectClose(await weights(), {
      groups: ['short', 'medium', 'long'],
      burnRatio: 0.2,
      burnWeight: 0.2,
      layers: [
        {
          subsetSize: 3,
          layerWeight: 0.25,
          elementWeight: 0.25,
          elements: [
            // bob (20.2/21)/3 = 0.3206 beats alice 2/21 and carol 0.0878.
            {
              subset: ['short', 'medium', 'long'],
              winners: ['bob'],
              winningScore: (bG.short + bG.medium + bG.long) / 3,
            },
          ],
        },
        {
          subsetSize: 2,
          layerWeight: 0.45,
          elementWeight: 0.15,
          elements: [
            { subset: ['short', 'medium'], winners: ['alice'], winningScore: (aG.short + aG.medium) / 2 }, // 5/14
            { subset: ['short', 'long'], winners: ['carol'], winningScore: (cG.short + cG.long) / 2 }, // 0.4746
            { subset: ['medium', 'long'], winners: ['bob'], winningScore: (bG.medium + bG.long) / 2 },
          ],
        }, // 0.8857
        {
          subsetSize: 1,
          layerWeight: 0.3,
          elementWeight: 0.1,
          elements: [
            { subset: ['short'], winners: ['alice'], winningScore: 4 / 7 }, // carol 0.5206
            { subset: ['medium'], winners: ['bob'], winningScore: 5.4 / 7 },
            { subset: ['long'], winners: ['bob'], winningScore: 1 },
          ],
        },
      ],
      rawWeights: { alice: 0.15 + 0.1, bob: 0.25 + 0.15 + 0.1 + 0.1, carol: 0.15 },
      finalWeights: { alice: 0.25 * 0.8, bob: 0.6 * 0.8, carol: 0.15 * 0.8 },
    });
  });

  it('scores screener_1 only when asked, and only it', async () => {
    // X1 (x = 5, T_B = 100): carol maintain r = log2(100/50) = 1; alice maintain r = 0; bob y = 0 < t = 4, penalty -4.
    const lb = await leaderboard('screener_1');
    expect(lb.stages).toEqual(['screener_1']);
    expectClose(
      lb.miners.map((m) => [m.rank, m.hotkey, m.normalizedScore, m.taskCounts.main]),
      [
        [1, 'carol', (2 * 1 + 1) / 7, 1],
        [2, 'alice', (2 * 0 + 1) / 7, 1],
        [3, 'bob', (2 * -4 + 1) / 7, 1],
      ],
    );
    const w = (
      await pub.GET('/v1/competitions/{competitionId}/weights', { params: { path, query: { stages: 'screener_1' } } })
    ).data!;
    expect(w.groups).toEqual(['short']);
    expectClose(w.layers, [
      { subsetSize: 1, layerWeight: 1, elementWeight: 1, elements: [{ subset: ['short'], winners: ['carol'] }] },
    ]);
    expectClose(w.finalWeights.carol, 0.8);
  });

  it('lets a validator delete only its own runs, and reads see the delete at once', async () => {
    const runPath = (runId: string) => ({ params: { path: { ...path, runId } } });
    const theirs = await v1.DELETE('/v1/competitions/{competitionId}/runs/{runId}', runPath('S1.bob.0'));
    expect(theirs.response.status).toBe(403);
    expect((await pub.GET('/v1/competitions/{competitionId}/runs/{runId}', runPath('S1.bob.0'))).response.status).toBe(
      200,
    );
    expectClose(
      (await leaderboard()).miners.map((m) => m.normalizedScore),
      [bSN, aSN, cSN],
    );

    // alice's only resolved run on the hard task S2: S2 becomes excluded for her (y = 0).
    const own = await v1.DELETE('/v1/competitions/{competitionId}/runs/{runId}', runPath('S2.alice.0'));
    expect(own.response.status).toBe(200);
    expect(own.data).toMatchObject({ runId: 'S2.alice.0', minerHotkey: 'alice', resolved: true });
    expect(
      (await pub.GET('/v1/competitions/{competitionId}/runs/{runId}', runPath('S2.alice.0'))).response.status,
    ).toBe(404);

    const lb = await leaderboard();
    // No hard task left: B_H = 0; short group (2*1 + 1)/7 = 3/7 now loses the single short to carol's 0.5206.
    expectClose(
      lb.miners.find((m) => m.hotkey === 'alice'),
      {
        rank: 2,
        normalizedScore: (2 * aSM + 1) / 7,
        hardBoost: 0,
        taskCounts: { main: 3, hardBoost: 0, excluded: 3 },
        runs: 29,
        resolvedRuns: 14,
        groupScores: { ...aG, short: 3 / 7 },
        incentive: { rawWeight: 0.15, finalWeight: 0.15 * 0.8 },
      },
    );
    expectClose((await weights()).rawWeights, { alice: 0.15, bob: 0.6, carol: 0.25 });
  });
});
