import { describe, expect, it } from 'vitest';
import { taskScore } from '../../src/scoring/taskScore.js';
import type { Zone } from '../../src/scoring/types.js';
import { pair } from './fixtures.js';

// Rows: x, y, zone, score. n = 10 and r = 1 (T_B = 200, T_A = 100) throughout.
describe('taskScore: standard task boundaries, y at t − 1, t, x, x + 1 (SPEC 4)', () => {
  it.each([
    [2, 0, 'penalty', -4],
    [2, 1, 'maintain', 1],
    [2, 2, 'maintain', 1],
    [2, 3, 'bonus', 1 + 1 / 8],
    [3, 1, 'penalty', -3],
    [3, 2, 'maintain', 1],
    [3, 3, 'maintain', 1],
    [3, 4, 'bonus', 1 + 1 / 7],
    [4, 2, 'penalty', -2 - 2 / 3],
    [4, 3, 'maintain', 1],
    [4, 4, 'maintain', 1],
    [4, 5, 'bonus', 1 + 1 / 6],
    [5, 3, 'penalty', -2.5],
    [5, 4, 'maintain', 1],
    [5, 5, 'maintain', 1],
    [5, 6, 'bonus', 1.2],
    [6, 3, 'penalty', -2.5],
    [6, 4, 'maintain', 1],
    [6, 6, 'maintain', 1],
    [6, 7, 'bonus', 1.25],
  ] as [number, number, Zone, number][])(
    'x = %d, y = %d: %s zone, s = %f (penalty below t, r for t ≤ y ≤ x, bonus above x)',
    (x, y, zone, score) => {
      const { task, miner } = pair(x, y, 10, 200, 100);
      const s = taskScore(task, miner);
      expect(s).toMatchObject({ zone, pool: 'main', hardBoostContribution: null });
      expect(s.score).toBeCloseTo(score, 12);
    },
  );

  it.each([
    [2, 1.2599210498948732],
    [3, 1.4422495703074083],
    [5, 1.709975946676697],
    [8, 2],
  ])('a main task with x = %d weighs x^(1/3) = %f', (x, weight) => {
    const { task, miner } = pair(x, x, 10);
    expect(taskScore(task, miner).weight).toBeCloseTo(weight, 14);
  });
});

// Rows: x, y, T_B, T_A, zone, score, h. n = 5.
describe('taskScore: hard tasks x ≤ 1 with y = 0, 1, 2 (SPEC 4)', () => {
  it.each([
    [0, 0, 100, 100, 'excluded', null, null],
    [0, 1, 100, 100, 'bonus', 0.2, 0.2],
    [0, 2, 100, 100, 'bonus', 0.4, 0.4],
    [1, 0, 100, 100, 'excluded', null, null],
    [1, 1, 100, 100, 'maintain', 0, 0],
    [1, 2, 100, 100, 'bonus', 0.25, 0.25],
    [1, 1, 50, 100, 'maintain', -1, 0], // h keeps only the positive part
    [0, 1, 25, 100, 'bonus', -1.8, 0], // bonus floor −2 approached from inside
  ] as [number, number, number, number, Zone, number | null, number | null][])(
    'x = %d, y = %d, T_B = %d, T_A = %d: %s, s = %s, h = %s',
    (x, y, tb, ta, zone, score, h) => {
      const { task, miner } = pair(x, y, 5, tb, ta);
      const s = taskScore(task, miner);
      expect(s.zone).toBe(zone);
      expect(s.pool).toBe(zone === 'excluded' ? 'excluded' : 'hard_boost');
      expect(s.weight).toBeNull();
      if (score === null) expect(s.score).toBeNull();
      else expect(s.score).toBeCloseTo(score, 12);
      if (h === null) expect(s.hardBoostContribution).toBeNull();
      else expect(s.hardBoostContribution).toBeCloseTo(h, 12);
    },
  );
});

// Rows: x, y, n, T_B, T_A, zone, score.
describe('taskScore: SPEC 9 worked examples and clamps', () => {
  it.each([
    [5, 5, 5, 100, 50, 'maintain', 1],
    [4, 2, 5, 100, 100, 'penalty', -2.6667],
    [2, 1, 5, 100, 50, 'maintain', 1], // t = 1: s = r
    [0, 1, 5, null, null, 'bonus', 0.2], // no baseline tokens: r = 0
    [1, 3, 5, 100, 100, 'bonus', 0.5],
    [3, 5, 5, 100, 25, 'bonus', 3], // clamp(2 + 1, −2, 3): on the ceiling
    [3, 5, 6, 100, 25, 'bonus', 2 + 2 / 3], // just inside the ceiling
    [2, 0, 10, 100, 100, 'penalty', -4], // on the floor −4
    [5, 1, 5, 100, 100, 'penalty', -3.5], // just inside the floor
    [20, 15, 20, 100, 100, 'penalty', -2.125], // just inside the penalty ceiling −2
  ] as [number, number, number, number | null, number | null, Zone, number][])(
    'x = %d, y = %d, n = %d, T_B = %s, T_A = %s: %s, s = %f',
    (x, y, n, tb, ta, zone, score) => {
      const { task, miner } = pair(x, y, n, tb, ta);
      const s = taskScore(task, miner);
      expect(s.zone).toBe(zone);
      expect(s.score).toBeCloseTo(score, 4);
    },
  );

  it.each([
    [0, 1, null, 0.2],
    [1, 3, 100, 0.5],
  ])('SPEC 9 hard row x = %d, y = %d, n = 5 has h = %f', (x, y, tokens, h) => {
    const { task, miner } = pair(x, y, 5, tokens, tokens);
    expect(taskScore(task, miner).hardBoostContribution).toBeCloseTo(h, 12);
  });
});

describe('taskScore: task without any baseline run (SPEC 3 choice)', () => {
  it('is excluded for every miner, with no score and no hard-boost bonus', () => {
    const { task, miner } = pair(0, 3, 5);
    task.baseline = { runs: 0, resolved: 0, resolvedTokenSum: 0, resolvedTokenCount: 0 };
    expect(taskScore(task, miner)).toMatchObject({
      x: 0,
      y: 3,
      zone: 'excluded',
      pool: 'excluded',
      score: null,
      weight: null,
      hardBoostContribution: null,
    });
  });

  it('a task whose baseline runs all failed is a hard task instead (x = 0)', () => {
    const { task, miner } = pair(0, 3, 5);
    expect(taskScore(task, miner)).toMatchObject({ zone: 'bonus', pool: 'hard_boost', score: 0.6 });
  });

  it('carries the task and miner identity and the miner’s run count', () => {
    const { task, miner } = pair(2, 2, 5);
    task.complexity = 'long';
    expect(taskScore(task, miner)).toMatchObject({
      taskId: 't',
      hotkey: 'm',
      stage: 'evaluation',
      complexity: 'long',
      runs: 5,
    });
  });
});
