import { describe, expect, it } from 'vitest';
import { alignEntries } from '../../src/scoring/alignEntries.js';

const list = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

describe('alignEntries', () => {
  it('finds nothing in a list whose entries all keep their places', () => {
    const a = list(20);
    expect(alignEntries(a, [...a])).toEqual({ added: [], gone: [] });
  });

  it.each([
    [
      'an entry replaced in place',
      (a: { i: number }[], x: { i: number }) => a.map((e, k) => (k === 5 ? x : e)),
      [5],
      true,
    ],
    ['a new entry last', (a: { i: number }[], x: { i: number }) => [...a, x], [], true],
    [
      'an entry inserted in the middle',
      (a: { i: number }[], x: { i: number }) => [...a.slice(0, 7), x, ...a.slice(7)],
      [],
      true,
    ],
    ['an entry taken out', (a: { i: number }[]) => a.filter((_, k) => k !== 9), [9], false],
    [
      'three entries taken out in a row',
      (a: { i: number }[]) => a.filter((_, k) => k < 9 || k > 11),
      [9, 10, 11],
      false,
    ],
  ])('yields just the entries concerned for %s', (_, change, goneAt, adds) => {
    const a = list(20);
    const x = { i: 99 };
    const { added, gone } = alignEntries(a, change(a, x));
    expect(added).toEqual(adds ? [x] : []);
    expect(gone).toEqual(goneAt.map((k) => a[k]));
  });

  it.each([
    ['reversed', (a: { i: number }[]) => [...a].reverse()],
    ['rotated', (a: { i: number }[]) => [...a.slice(13), ...a.slice(0, 13)]],
    [
      'shuffled and cut',
      (a: { i: number }[]) => a.filter((_, k) => k % 3 !== 0).sort((x, y) => ((x.i * 7) % 11) - ((y.i * 7) % 11)),
    ],
  ])('misses nothing in a list %s: the old list less what is gone, plus what is added, is the new one', (_, change) => {
    const a = list(20);
    const b = change(a);
    const { added, gone } = alignEntries(a, b);
    const kept = a.filter((e) => !gone.includes(e));
    expect(new Set([...kept, ...added])).toEqual(new Set(b));
    expect(kept.length + added.length).toBe(b.length);
  });

  it('yields everything for an empty list before or after', () => {
    const a = list(3);
    expect(alignEntries([], a)).toEqual({ added: a, gone: [] });
    expect(alignEntries(a, [])).toEqual({ added: [], gone: a });
  });
});
