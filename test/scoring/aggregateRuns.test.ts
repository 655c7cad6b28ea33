import { describe, expect, it } from 'vitest';
import { aggregateRuns } from '../../src/scoring/aggregateRuns.js';
import type { ScoringRun } from '../../src/scoring/types.js';
import { countsOf, runs } from './fixtures.js';

describe('aggregateRuns (SPEC 3 sums)', () => {
  it('T_B sums only resolved baseline runs with valid tokens; every baseline run counts as a run', () => {
    const input = [
      ...runs('t1', 'baseline', 'YY', 100),
      ...runs('t1', 'baseline', 'N', 999),
      ...runs('t1', 'baseline', 'Y', 0),
    ];
    expect(aggregateRuns(input).baselines.get('t1')).toEqual({
      runs: 4,
      resolved: 3,
      resolvedTokenSum: 200,
      resolvedTokenCount: 2,
    });
  });

  it('T_A sums every miner run with valid tokens, resolved or not', () => {
    const input = [...runs('t1', 'a', 'Y', 100), ...runs('t1', 'a', 'N', 300)];
    expect(aggregateRuns(input).minerTasks).toEqual([
      { taskId: 't1', hotkey: 'a', runs: 2, resolved: 1, tokenSum: 400, tokenCount: 2 },
    ]);
  });

  it('a zero-token or invalid run still counts as a run but is left out of token sums and counts', () => {
    const input = [...runs('t1', 'a', 'Y', 100), ...runs('t1', 'a', 'N', 0), ...runs('t1', 'a', 'N', null)];
    expect(aggregateRuns(input).minerTasks).toEqual([
      { taskId: 't1', hotkey: 'a', runs: 3, resolved: 1, tokenSum: 100, tokenCount: 1 },
    ]);
  });

  it('a miner run without a hotkey cannot be attributed and is ignored', () => {
    const orphan: ScoringRun = { taskId: 't1', kind: 'miner', resolved: true, tokens: countsOf(5) };
    expect(aggregateRuns([orphan]).minerTasks).toEqual([]);
  });

  it('lists summaries by task id then hotkey, whatever the run order', () => {
    const input = [...runs('t2', 'b', 'Y'), ...runs('t1', 'b', 'N'), ...runs('t1', 'a', 'Y')];
    const keys = aggregateRuns(input).minerTasks.map((s) => `${s.taskId}/${s.hotkey}`);
    expect(keys).toEqual(['t1/a', 't1/b', 't2/b']);
  });

  it('token sums do not depend on run order', () => {
    const tokens = [
      { input: 1, cachedInput: 7, output: 3 },
      { input: 2 ** 52, cachedInput: null, output: 1 },
      { input: 33, cachedInput: 1, output: 0 },
      { input: 0, cachedInput: 0, output: 0 },
      { input: 7, cachedInput: 999_999, output: 2 },
      { input: 22, output: 5 },
    ];
    const make = (order: number[]): ScoringRun[] =>
      order.map((i) => ({ taskId: 't', kind: 'miner', hotkey: 'a', resolved: true, tokens: tokens[i] ?? null }));
    const a = aggregateRuns(make([0, 1, 2, 3, 4, 5])).minerTasks[0];
    const b = aggregateRuns(make([5, 3, 1, 4, 0, 2])).minerTasks[0];
    expect(b).toEqual(a);
    expect(a?.tokenCount).toBe(5);
  });

  it("sums raw counts exactly, then weights the sums once (the storage layer's float operations)", () => {
    const w = { input: 1, cachedInput: 0.1, output: 3 };
    const input: ScoringRun[] = [
      { taskId: 't', kind: 'miner', hotkey: 'a', resolved: false, tokens: { input: 1, cachedInput: 1, output: 3 } },
      { taskId: 't', kind: 'miner', hotkey: 'a', resolved: false, tokens: { input: 1, cachedInput: 2, output: 3 } },
    ];
    const perRun = 1 * 1 + 0.1 * 1 + 3 * 3 + (1 * 1 + 0.1 * 2 + 3 * 3);
    const once = 1 * 2 + 0.1 * 3 + 3 * 6;
    expect(once).not.toBe(perRun); // 20.3 against 20.299999999999997
    expect(aggregateRuns(input, w).minerTasks[0]?.tokenSum).toBe(once);
  });

  it("validity follows the competition's weights: a count weighted to 0 stays out of the mean", () => {
    const input: ScoringRun[] = [
      { taskId: 't', kind: 'miner', hotkey: 'a', resolved: true, tokens: { input: 0, cachedInput: 50, output: 0 } },
    ];
    expect(aggregateRuns(input, { input: 1, cachedInput: 0, output: 3 }).minerTasks[0]).toMatchObject({
      runs: 1,
      tokenCount: 0,
    });
    expect(aggregateRuns(input).minerTasks[0]).toMatchObject({ runs: 1, tokenCount: 1, tokenSum: 5 });
  });

  it('empty input gives no summaries', () => {
    const { baselines, minerTasks } = aggregateRuns([]);
    expect(baselines.size).toBe(0);
    expect(minerTasks).toEqual([]);
  });
});
