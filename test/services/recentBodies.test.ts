// Miner and task bodies kept within a byte budget, least recently read first out
// (src/http/recentBodies.ts).
import { expect, it } from 'vitest';
import { bytesBody, type Body } from '../../src/http/body.js';
import { recentBodies } from '../../src/http/recentBodies.js';

/** Caches a body of `size` bytes under `key` in `owner`, as the score cache does. */
function put(
  r: ReturnType<typeof recentBodies>,
  group: string,
  owner: Map<string, Promise<Body>>,
  key: string,
  size: number,
) {
  const body = bytesBody(Buffer.alloc(size));
  const p = Promise.resolve(body);
  owner.set(key, p);
  r.add(group, owner, key, p, body);
  return p;
}

it('evicts the least recently read bodies beyond the budget, from their owners too', () => {
  const r = recentBodies(250);
  const owner = new Map<string, Promise<Body>>();
  const a = put(r, 'c', owner, 'a', 100);
  void put(r, 'c', owner, 'b', 100);
  r.touch(a); // a read again: b is now the oldest
  void put(r, 'c', owner, 'c', 100);
  expect([...owner.keys()].sort()).toEqual(['a', 'c']);
  expect(r.bytes()).toBe(200);
});

it('keeps a body larger than the budget until the next one comes', () => {
  const r = recentBodies(50);
  const owner = new Map<string, Promise<Body>>();
  void put(r, 'c', owner, 'big', 100);
  expect([...owner.keys()]).toEqual(['big']);
  void put(r, 'c', owner, 'next', 10);
  expect([...owner.keys()]).toEqual(['next']);
});

it("drops a competition's bodies and frees their bytes", () => {
  const r = recentBodies(1000);
  const one = new Map<string, Promise<Body>>();
  const two = new Map<string, Promise<Body>>();
  void put(r, 'one', one, 'm1', 100);
  void put(r, 'two', two, 'm1', 100);
  r.drop('one');
  expect(r.count()).toBe(1);
  expect(r.bytes()).toBe(100);
  expect([...two.keys()]).toEqual(['m1']);
});

it('does not count a body its owner no longer holds', () => {
  const r = recentBodies(1000);
  const owner = new Map<string, Promise<Body>>();
  const body = bytesBody(Buffer.alloc(10));
  r.add('c', owner, 'k', Promise.resolve(body), body);
  expect(r.count()).toBe(0);
});
