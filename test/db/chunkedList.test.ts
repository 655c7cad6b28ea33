import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CHUNK, ChunkedBuffer, ChunkedList } from '../../src/db/chunkedList.js';

const chunksOf = (list: ChunkedList<unknown>) => (list as unknown as { chunks: unknown[][] }).chunks;

it('every version handed out keeps the entries it had, whatever the buffer does after', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('push' as const), value: fc.integer() }),
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer() }),
    fc.record({ kind: fc.constant('view' as const) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), fc.nat({ max: 3000 }), (ops, prefill) => {
      const buffer = new ChunkedBuffer<number>();
      const model: number[] = [];
      for (let i = 0; i < prefill; i++) {
        buffer.push(i);
        model.push(i);
      }
      const views: [ChunkedList<number>, number[]][] = [];
      for (const o of ops) {
        if (o.kind === 'push') {
          buffer.push(o.value);
          model.push(o.value);
        } else if (o.kind === 'set' && model.length > 0) {
          const at = o.at % model.length;
          buffer.set(at, o.value);
          model[at] = o.value;
        } else if (o.kind === 'view') views.push([buffer.view(), [...model]]);
        expect(buffer.length).toBe(model.length);
      }
      views.push([buffer.view(), [...model]]);
      for (const [list, seen] of views) {
        expect([...list]).toEqual(seen);
        expect(list.length).toBe(seen.length);
        expect(JSON.stringify(list)).toBe(JSON.stringify(seen));
        for (const at of [0, seen.length - 1, seen.length >> 1]) expect(list.at(at)).toBe(seen[at]);
        expect(list.at(seen.length)).toBeUndefined();
        expect(list.at(-1)).toBeUndefined();
      }
    }),
    { numRuns: 150 },
  );
});

it('a change after a hand-out copies one chunk: the next version shares every other', () => {
  const buffer = new ChunkedBuffer<number>();
  for (let i = 0; i < 10 * CHUNK + 5; i++) buffer.push(i);
  const before = buffer.view();
  buffer.set(3 * CHUNK + 7, -1);
  buffer.push(-2);
  const after = buffer.view();
  const [a, b] = [chunksOf(before), chunksOf(after)];
  expect(b).toHaveLength(11);
  expect(b.filter((chunk, i) => chunk !== a[i]).length).toBe(2); // the one set, and the last one pushed to
  expect(before.at(3 * CHUNK + 7)).toBe(3 * CHUNK + 7);
  expect(after.at(3 * CHUNK + 7)).toBe(-1);
  expect(before.length).toBe(10 * CHUNK + 5);
  expect(after.at(10 * CHUNK + 5)).toBe(-2);
  // Changes before the next hand-out go to the chunks already copied.
  buffer.set(3 * CHUNK + 8, -3);
  expect(chunksOf(buffer.view())[3]).not.toBe(b[3]);
  expect(after.at(3 * CHUNK + 8)).toBe(3 * CHUNK + 8);
});

it('set outside the list is refused', () => {
  const buffer = new ChunkedBuffer<number>();
  buffer.push(1);
  expect(() => buffer.set(1, 2)).toThrow(RangeError);
  expect(() => buffer.set(-1, 2)).toThrow(RangeError);
});
