// fast-check generator of a competition as the HTTP API receives it: settings, tasks, baseline
// and miner runs with raw token counts, exclusions, deletions and a late weight change.
import fc from 'fast-check';
import type { Complexity, Stage, TokenWeights } from '../../src/scoring/types.js';
import { admin, type TestApp } from '../support/app.js';

export interface RandomRun {
  runId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey: string | null;
  resolved: boolean;
  tokens: { input: number; cachedInput?: number; output: number } | null;
}

export interface RandomCompetition {
  weights: TokenWeights;
  laterWeights: TokenWeights | null;
  burnRatio: number;
  finalStages: Stage[] | null;
  tasks: { id: string; stage: Stage; complexity: Complexity | null; plannedRuns: number | null }[];
  runs: RandomRun[];
  excluded: string[];
  /** Miners the admin marks (not excluded) without any run. */
  idle: string[];
  deleted: string[];
  askStages: Stage[] | null;
}

const HOTKEYS = ['m0', 'm1', 'm2', 'm3'];
const STAGES: Stage[] = ['screener_1', 'screener_2', 'evaluation'];
const weight = fc.oneof(fc.constantFrom(0, 0.1, 1, 3), fc.double({ min: 0, max: 7, noNaN: true }));
const weights = fc.oneof(
  fc.constant({ input: 1, cachedInput: 0.1, output: 3 }),
  fc.record({ input: weight, cachedInput: weight, output: weight }),
);
const count = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000_000 }));
const tokens = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 6,
    arbitrary: fc.record({ input: count, cachedInput: count, output: count }, { requiredKeys: ['input', 'output'] }),
  },
);
const outcome = fc.record({ resolved: fc.boolean(), tokens });
const stages = fc.subarray(STAGES, { minLength: 1 });

export const randomCompetition: fc.Arbitrary<RandomCompetition> = fc
  .record({
    weights,
    laterWeights: fc.option(weights, { freq: 3 }),
    burnRatio: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
    finalStages: fc.option(stages),
    tasks: fc.array(
      fc.record({
        stage: fc.constantFrom<Stage>('screener_1', 'screener_2', 'evaluation', 'evaluation'),
        complexity: fc.constantFrom<Complexity | null>('short', 'medium', 'long', null),
        plannedRuns: fc.option(fc.integer({ min: 1, max: 6 })),
        baseline: fc.array(outcome, { maxLength: 5 }),
        miners: fc.tuple(...HOTKEYS.map(() => fc.array(outcome, { maxLength: 4 }))),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    excluded: fc.subarray(HOTKEYS, { maxLength: 1 }),
    idle: fc.subarray(['z-idle'], {}),
    deleteShare: fc.double({ min: 0, max: 0.3, noNaN: true }),
    askStages: fc.option(stages),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
  })
  .map(({ tasks, deleteShare, seed, ...rest }) => {
    const runs: RandomRun[] = [];
    let s = seed;
    // Run ids in an order unrelated to posting order, so nothing depends on insertion order.
    const id = () => `r${((s = (s * 48271) % 2147483647) % 1e6).toString().padStart(6, '0')}-${runs.length}`;
    const specs = tasks.map((t, i) => {
      const taskId = `task-${String.fromCharCode(97 + ((i * 7) % 26))}${i}`;
      for (const o of t.baseline) runs.push({ runId: id(), taskId, kind: 'baseline', minerHotkey: null, ...o });
      t.miners.forEach((list, m) => {
        for (const o of list) runs.push({ runId: id(), taskId, kind: 'miner', minerHotkey: HOTKEYS[m] ?? 'm0', ...o });
      });
      return { id: taskId, stage: t.stage, complexity: t.complexity, plannedRuns: t.plannedRuns };
    });
    const deleted = runs.filter((_, i) => (i * 0.618) % 1 < deleteShare).map((r) => r.runId);
    return { ...rest, tasks: specs, runs, deleted };
  });

async function ok(t: TestApp, method: 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await t.call({ method, url, headers: admin, ...(payload ? { payload } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Posts the competition the way an operator and validators would. */
export async function postCompetition(t: TestApp, c: RandomCompetition): Promise<void> {
  const C = '/v1/competitions/c';
  const settings = {
    name: 'Random',
    tokenWeights: c.weights,
    burnRatio: c.burnRatio,
    ...(c.finalStages ? { finalStages: c.finalStages } : {}),
  };
  await ok(t, 'PUT', C, settings);
  const tasks = c.tasks.map((x) => ({
    id: x.id,
    type: 'swebench_verified',
    stage: x.stage,
    complexity: x.complexity,
    plannedRuns: x.plannedRuns,
  }));
  await ok(t, 'PUT', `${C}/tasks`, { tasks });
  const runs = c.runs.map(({ minerHotkey, tokens, ...r }) => ({
    ...r,
    ...(minerHotkey ? { minerHotkey } : {}),
    tokens,
  }));
  for (let i = 0; i < runs.length; i += 50) await ok(t, 'POST', `${C}/runs`, { runs: runs.slice(i, i + 50) });
  for (const hotkey of c.excluded) await ok(t, 'PUT', `${C}/miners/${hotkey}`, { excluded: true });
  for (const hotkey of c.idle) await ok(t, 'PUT', `${C}/miners/${hotkey}`, { excluded: false });
  for (const runId of c.deleted) await ok(t, 'DELETE', `${C}/runs/${runId}`);
  if (c.laterWeights) await ok(t, 'PUT', C, { ...settings, tokenWeights: c.laterWeights });
}
