// The per-miner and per-task response bodies the score cache keeps, within a byte budget over
// every competition: the least recently read goes first and is built again on its next read.
// Unbounded, a dashboard walking every miner's breakdown would keep them all until the next write:
// 256 bodies of about 100 kB at the reference size, 1,024 at 4x, past the server's memory bound.
import type { Body } from './body.js';

interface Kept<E> {
  /** The map the body is cached in (its scores' entry), and its key there. */
  owner: Map<string, E>;
  key: string;
  group: string;
  bytes: number;
}

export function recentBodies<E extends object = Promise<Body>>(budgetBytes: number) {
  /** Least recently read first. */
  const kept = new Map<E, Kept<E>>();
  let total = 0;

  const forget = (p: E, k: Kept<E>) => {
    kept.delete(p);
    total -= k.bytes;
    if (k.owner.get(k.key) === p) k.owner.delete(k.key);
  };

  return {
    /** Counts a body built for `owner` under `key`, then evicts the least recent beyond the budget. */
    add(group: string, owner: Map<string, E>, key: string, p: E, body: Body): void {
      if (owner.get(key) !== p || kept.has(p)) return; // dropped or replaced meanwhile
      const k = { owner, key, group, bytes: body.bytes.length };
      kept.set(p, k);
      total += k.bytes;
      for (const [q, old] of kept) {
        if (total <= budgetBytes || q === p) break;
        forget(q, old);
      }
    },
    /** Marks a body read again: it goes last. */
    touch(p: E): void {
      const k = kept.get(p);
      if (!k) return;
      kept.delete(p);
      kept.set(p, k);
    },
    /** Forgets every body of a group (a competition whose scores a write dropped). */
    drop(group: string): void {
      for (const [p, k] of kept) if (k.group === group) forget(p, k);
    },
    bytes: () => total,
    count: () => kept.size,
  };
}
