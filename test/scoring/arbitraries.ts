// fast-check generators of small competitions written as raw runs (see fixtures.ts).
import fc from 'fast-check';
import type { Complexity, ScoringRun, Stage } from '../../src/scoring/index.js';
import { competition, type ArrayInput, type TaskSpec } from './fixtures.js';

const count = fc.integer({ min: 0, max: 2_000_000 });
const run = fc.record({
  resolved: fc.boolean(),
  // Invalid and zero counts included: they must count as runs but stay out of the means.
  tokens: fc.oneof(
    fc.constant(null),
    fc.constant({ input: 0, cachedInput: 0, output: 0 }),
    fc.record({ input: count, cachedInput: fc.option(count), output: count }),
  ),
});

export interface RawCompetition {
  tasks: TaskSpec[];
  runs: ScoringRun[];
  hotkeys: string[];
  excluded: string[];
  burnRatio: number;
}

export const rawCompetition: fc.Arbitrary<RawCompetition> = fc
  .record({
    taskCount: fc.integer({ min: 1, max: 6 }),
    minerCount: fc.integer({ min: 1, max: 4 }),
    burnRatio: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .chain(({ taskCount, minerCount, burnRatio }) => {
    const hotkeys = Array.from({ length: minerCount }, (_, i) => `m${i}`);
    const task = fc.record({
      complexity: fc.constantFrom<Complexity | null>('short', 'medium', 'long', null),
      stage: fc.constantFrom<Stage>('screener_1', 'screener_2', 'evaluation', 'evaluation'),
      plannedRuns: fc.option(fc.integer({ min: 0, max: 6 })),
      baseline: fc.array(run, { maxLength: 5 }),
      miners: fc.tuple(...hotkeys.map(() => fc.array(run, { maxLength: 4 }))),
    });
    return fc.record({
      tasks: fc.array(task, { minLength: taskCount, maxLength: taskCount }),
      excluded: fc.subarray(hotkeys, { maxLength: 1 }),
      burnRatio: fc.constant(burnRatio),
      hotkeys: fc.constant(hotkeys),
    });
  })
  .map(({ tasks, excluded, burnRatio, hotkeys }) => {
    const runs: ScoringRun[] = [];
    const specs: TaskSpec[] = tasks.map((t, i) => {
      const taskId = `t${i}`;
      for (const r of t.baseline) runs.push({ taskId, kind: 'baseline', resolved: r.resolved, tokens: r.tokens });
      t.miners.forEach((list, m) => {
        for (const r of list)
          runs.push({ taskId, kind: 'miner', hotkey: hotkeys[m], resolved: r.resolved, tokens: r.tokens });
      });
      return { id: taskId, complexity: t.complexity, stage: t.stage, plannedRuns: t.plannedRuns };
    });
    return { tasks: specs, runs, hotkeys, excluded, burnRatio };
  });

export function toInput(raw: RawCompetition): ArrayInput {
  return competition({
    tasks: raw.tasks,
    runs: raw.runs,
    miners: raw.hotkeys.map((hotkey) => ({ hotkey, excluded: raw.excluded.includes(hotkey) })),
    burnRatio: raw.burnRatio,
  });
}
