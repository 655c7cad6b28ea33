// The in-memory (task, miner) aggregates (src/db/pairMirror.ts): entries in the order a table
// read and later changes made them, so an updated mirror and a fresh read agree.
import { expect, it } from 'vitest';
import { PairMirror } from '../../src/db/pairMirror.js';
import { prng } from '../support/prng.js';

const W = { input: 1, cachedInput: 0.5, output: 2 };
/** task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum */
const row = (taskId: string, hotkey: string, runs: number): unknown[] => [taskId, hotkey, runs, 1, 1, 10, 4, 3];
const pairs = (m: PairMirror) => [...m.entries()].map((e) => `${e.taskId}/${e.hotkey}:${e.runs}`);

it('keeps the rows in read order, with token sums weighted once', () => {
  const m = new PairMirror(W, [row('T1', 'a', 1), row('T1', 'b', 2), row('T2', 'a', 3)]);
  expect(pairs(m)).toEqual(['T1/a:1', 'T1/b:2', 'T2/a:3']);
  expect(m.entries().at(0)).toEqual({
    taskId: 'T1',
    hotkey: 'a',
    runs: 1,
    resolved: 1,
    tokenCount: 1,
    tokenSum: 10 + 2 + 6,
  });
});

it('updates a known pair in place, puts a new one last and drops a removed one', () => {
  const m = new PairMirror(W, [row('T1', 'a', 1), row('T1', 'b', 2), row('T2', 'a', 3)]);
  const before = m.entries();
  m.put(row('T1', 'a', 5));
  m.put(row('T3', 'b', 1));
  m.remove('T1', 'b');
  m.remove('T9', 'zz'); // unknown: nothing changes
  expect(pairs(m)).toEqual(['T1/a:5', 'T2/a:3', 'T3/b:1']);
  // The list handed out before is not mutated (reads in flight keep what they were given).
  expect([...before].map((e) => e.runs)).toEqual([1, 2, 3]);
});

it('hands out one list until the next change', () => {
  const m = new PairMirror(W, [row('T1', 'a', 1)]);
  expect(m.entries()).toBe(m.entries());
  const first = m.entries();
  m.put(row('T1', 'a', 2));
  expect(m.entries()).not.toBe(first);
});

it('keeps a task id and a hotkey that read alike apart', () => {
  // One name table serves task ids and hotkeys: (x, y) and (y, x) are still two pairs.
  const m = new PairMirror(W, [row('x', 'y', 1), row('y', 'x', 2)]);
  m.remove('x', 'y');
  expect(pairs(m)).toEqual(['y/x:2']);
});

it('shows changes without making them: the list put and remove would give, the mirror as it was', () => {
  const m = new PairMirror(W, [row('T1', 'a', 1), row('T1', 'b', 2), row('T2', 'a', 3)]);
  const before = m.entries();
  const changes = [
    { taskId: 'T1', hotkey: 'a', row: row('T1', 'a', 5) },
    { taskId: 'T3', hotkey: 'b', row: row('T3', 'b', 1) },
    { taskId: 'T1', hotkey: 'b', row: undefined },
    { taskId: 'T9', hotkey: 'zz', row: undefined },
  ];
  const shown = m.withChanges(changes);
  // The same as making them on a copy.
  const copy = new PairMirror(W, [row('T1', 'a', 1), row('T1', 'b', 2), row('T2', 'a', 3)]);
  for (const c of changes) {
    if (c.row) copy.put(c.row);
    else copy.remove(c.taskId, c.hotkey);
  }
  expect([...shown]).toEqual([...copy.entries()]);
  expect([...shown].map((e) => `${e.taskId}/${e.hotkey}:${e.runs}`)).toEqual(['T1/a:5', 'T2/a:3', 'T3/b:1']);
  // The mirror itself is untouched.
  expect(m.entries()).toBe(before);
  expect(pairs(m)).toEqual(['T1/a:1', 'T1/b:2', 'T2/a:3']);
  // No change: the mirror's own list.
  expect(m.withChanges([])).toBe(before);
});

it('tells what changed between the last two lists handed out, exactly, or nothing', () => {
  const rand = prng(11).below;
  const m = new PairMirror(W, [row('T1', 'a', 1), row('T1', 'b', 2), row('T2', 'a', 3)]);
  let before = m.entries();
  expect(m.changes()).toBeUndefined(); // nothing handed out before the first list
  let told = 0;
  for (let step = 0; step < 300; step++) {
    // A few changes, some to the same pair twice, some removed and put again.
    for (let k = rand(4); k >= 0; k--) {
      const [task, hotkey] = [`T${rand(3)}`, 'abcd'[rand(4)]!];
      if (rand(4) === 0) m.remove(task, hotkey);
      else m.put(row(task, hotkey, step * 10 + k));
    }
    if (rand(5) === 0) for (let k = 0; k < 600; k++) m.put(row(`T${rand(3)}`, 'abcd'[rand(4)]!, k));
    const after = m.entries();
    const changes = m.changes();
    // No change: the same list again, and what it came from.
    if (after === before) expect(changes === undefined || changes.to === after).toBe(true);
    else if (changes) {
      told++;
      expect(changes.from).toBe(before);
      expect(changes.to).toBe(after);
      const [was, now] = [new Set(before), new Set(after)];
      expect(new Set(changes.added)).toEqual(new Set([...after].filter((e) => !was.has(e))));
      expect(new Set(changes.gone)).toEqual(new Set([...before].filter((e) => !now.has(e))));
      expect(changes.added.length).toBe(new Set(changes.added).size);
    }
    before = after;
  }
  expect(told).toBeGreaterThan(200);
});
