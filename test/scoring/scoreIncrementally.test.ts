import { describe, expect, it } from 'vitest';
import { scoreCompetition } from '../../src/scoring/scoreCompetition.js';
import { scoreIncrementally } from '../../src/scoring/scoreIncrementally.js';
import type { CompetitionInput, MinerTaskSummary } from '../../src/scoring/types.js';
import { competition, runs, type ArrayInput } from './fixtures.js';

/** Three miners on three tasks of three groups; b and c never touch t3. */
function base(): ArrayInput {
  return competition({
    tasks: [
      { id: 't1', complexity: 'short' },
      { id: 't2', complexity: 'medium' },
      { id: 't3', complexity: 'long' },
    ],
    runs: [
      ...runs('t1', 'baseline', 'YYNN', 200),
      ...runs('t2', 'baseline', 'YNNN', 200),
      ...runs('t3', 'baseline', 'YYYN', 200),
      ...runs('t1', 'a', 'YYYN', 100),
      ...runs('t2', 'a', 'YNNN', 300),
      ...runs('t3', 'a', 'YYNN', 150),
      ...runs('t1', 'b', 'YYNN', 250),
      ...runs('t2', 'b', 'YYNN', 120),
      ...runs('t1', 'c', 'NNNN', 100),
    ],
    miners: [
      { hotkey: 'a', excluded: false },
      { hotkey: 'b', excluded: false },
      { hotkey: 'c', excluded: false },
    ],
    burnRatio: 0.2,
  });
}

const full = (input: CompetitionInput) => scoreCompetition(input, { keepTasks: false });

/** The input with the (task, hotkey) entry replaced in place by a new object. */
function written(input: ArrayInput, taskId: string, hotkey: string, change: Partial<MinerTaskSummary>) {
  const minerTasks = input.minerTasks.map((e) =>
    e.taskId === taskId && e.hotkey === hotkey ? { ...e, ...change } : e,
  );
  return { ...input, minerTasks };
}

describe('scoreIncrementally', () => {
  it('from no state scores like scoreCompetition without task lists', () => {
    const input = base();
    expect(scoreIncrementally(undefined, input).scores).toEqual(full(input));
  });

  it('after a write to one pair rescores only its miner: the other miners keep their records', () => {
    const before = base();
    const first = scoreIncrementally(undefined, before);
    const input = written(before, 't2', 'b', { runs: 5, resolved: 3 });
    const next = scoreIncrementally(first.state, input);
    expect(next.scores).toEqual(full(input));
    expect(next.state.records.get('a')).toBe(first.state.records.get('a'));
    expect(next.state.records.get('c')).toBe(first.state.records.get('c'));
    expect(next.state.records.get('b')).not.toBe(first.state.records.get('b'));
  });

  it('keeps its records in hotkey order, a new miner among them (the contests take them so)', () => {
    const input = base();
    const reversed = { ...input, miners: [...input.miners].reverse() };
    const first = scoreIncrementally(undefined, reversed);
    expect([...first.state.records.keys()]).toEqual(['a', 'b', 'c']);
    const entry = { ...input.minerTasks[0]!, hotkey: 'ab' };
    const next = scoreIncrementally(first.state, { ...reversed, minerTasks: [...reversed.minerTasks, entry] });
    expect([...next.state.records.keys()]).toEqual(['a', 'ab', 'b', 'c']);
    expect(next.scores).toEqual(full({ ...reversed, minerTasks: [...reversed.minerTasks, entry] }));
  });

  it('after a baseline change rescores the miners on that task only', () => {
    const input = base();
    const first = scoreIncrementally(undefined, input);
    const tasks = input.tasks.map((t) =>
      t.id === 't3' ? { ...t, baseline: { ...t.baseline, resolved: 1 } } : { ...t },
    );
    const next = scoreIncrementally(first.state, { ...input, tasks });
    expect(next.scores).toEqual(full({ ...input, tasks }));
    expect(next.state.records.get('a')).not.toBe(first.state.records.get('a'));
    expect(next.state.records.get('b')).toBe(first.state.records.get('b'));
  });

  it('excluding a miner takes it out of everything, and including it again gives its scores back', () => {
    const input = base();
    const first = scoreIncrementally(undefined, input);
    const out = { ...input, miners: input.miners.map((m) => ({ ...m, excluded: m.hotkey === 'a' })) };
    const excluded = scoreIncrementally(first.state, out);
    expect(excluded.scores).toEqual(full(out));
    expect(excluded.scores.miners.find((m) => m.hotkey === 'a')).toMatchObject({ rank: null, runs: 0 });
    expect(scoreIncrementally(excluded.state, input).scores).toEqual(first.scores);
  });

  it('leaves the state it starts from valid: scoring from it again gives the same', () => {
    const before = base();
    const first = scoreIncrementally(undefined, before);
    const a = written(before, 't1', 'c', { resolved: 4 });
    const b = written(before, 't1', 'a', { runs: 0, resolved: 0 });
    expect(scoreIncrementally(first.state, a).scores).toEqual(full(a));
    expect(scoreIncrementally(first.state, b).scores).toEqual(full(b));
    expect(scoreIncrementally(first.state, before).scores).toEqual(first.scores);
  });

  it('scores a pair with two entries as their sum, as scoreCompetition does', () => {
    const input = base();
    const first = scoreIncrementally(undefined, input);
    const twice = { ...input, minerTasks: [...input.minerTasks, { ...input.minerTasks[0]!, runs: 2, resolved: 2 }] };
    const next = scoreIncrementally(first.state, twice);
    expect(next.scores).toEqual(full(twice));
    expect(scoreIncrementally(next.state, input).scores).toEqual(first.scores);
  });

  it('starts over for another stage set and gives that set’s scores', () => {
    const input = base();
    const first = scoreIncrementally(undefined, input);
    const other = { ...input, stages: ['screener_1' as const] };
    expect(scoreIncrementally(first.state, other).scores).toEqual(full(other));
  });
});
