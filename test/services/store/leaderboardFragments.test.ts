// The whole leaderboard's bytes put together from each entry's JSON, reusing the entries of the
// list a write replaced where they did not change (src/http/leaderboardPages.ts, kept across writes
// by src/http/viewBodies.ts): after any write, byte for byte the JSON.stringify of the view.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { leaderboardPages, sameJson, type Fragments } from '../../../src/http/leaderboardPages.js';
import { viewBodies } from '../../../src/http/viewBodies.js';
import type { RankedList } from '../../../src/services/scores/views.js';
import { prng } from '../../support/prng.js';
import { serviceKit, type ServiceKit } from '../../support/services.js';

let kit: ServiceKit;
beforeEach(async () => {
  kit = await serviceKit();
});
afterEach(async () => kit.close());

it('equals JSON.stringify of the view after every write', async () => {
  const pick = prng(5).below;
  await kit.seed('c', [['b0', null, true]]);
  const views = viewBodies();
  kit.services.scores.onDrop((id, released) => views.drop(id, released));
  for (let step = 0; step < 60; step++) {
    // One run of one of 12 miners (a new one now and then), or a baseline run: ranks and weights move.
    const miner = pick(5) === 0 ? null : `m${pick(12)}`;
    await kit.ingest('c', [[`r${step}`, miner, pick(3) > 0, 20 + pick(200)]]);
    const view = await kit.services.scores.leaderboard('c');
    const { head, entries, shown } = (await view.value()) as RankedList;
    const miners = entries.map((e) => (shown ? shown(e) : e));
    const expected = JSON.stringify({ ...head, total: entries.length, miners });
    expect((await views.body(view)).bytes.toString('utf8')).toBe(expected);
  }
});

const entry = (hotkey: string, rank: number, score: number) => ({
  hotkey,
  rank,
  normalizedScore: score,
  incentive: { rawWeight: score, finalWeight: score / 2 },
});

it('reuses the bytes of an unchanged entry only: another value, rank or key order is serialized again', () => {
  const head = { competitionId: 'c', stages: ['evaluation'] };
  let before: Fragments | undefined;
  const first = [entry('a', 1, 0.9), entry('b', 2, 0.5), entry('c', 3, 0.1), entry('e', 4, 0.05)];
  leaderboardPages(head, first, undefined, (f) => (before = f)).read({ offset: 0 });
  const { hotkey, rank, normalizedScore, incentive } = first[3]!;
  const next = [
    entry('b', 1, 0.95), // another score
    first[0]!, // the same object, at another place: another rank in a real list, here the same
    { ...first[2]!, incentive: { ...first[2]!.incentive } }, // equal values in new objects
    { rank, hotkey, normalizedScore, incentive }, // equal values in another key order
    entry('d', 5, 0.1), // new
  ];
  let after: Fragments | undefined;
  const body = leaderboardPages(head, next, before, (f) => (after = f)).read({ offset: 0 });
  expect(body.bytes.toString('utf8')).toBe(JSON.stringify({ ...head, total: next.length, miners: next }));
  const reused = after!.json.map((b) => before!.json.includes(b));
  expect(reused).toEqual([false, true, true, false, false]);
});

it('serializes what `shown` makes of each entry, and reuses the bytes of the same entry object', () => {
  const head = { competitionId: 'c', stages: ['evaluation'] };
  const shown = (e: { hotkey: string }) => {
    const { tasks: _tasks, ...rest } = e as ReturnType<typeof entry> & { tasks: unknown[] };
    return rest;
  };
  const withTasks = (hotkey: string, rank: number, score: number) => ({ ...entry(hotkey, rank, score), tasks: [] });
  const first = [withTasks('a', 1, 0.9), withTasks('b', 2, 0.5)];
  let before: Fragments | undefined;
  const one = leaderboardPages(head, first, undefined, (f) => (before = f), undefined, shown).read({ offset: 0 });
  expect(one.bytes.toString('utf8')).toBe(JSON.stringify({ ...head, total: 2, miners: first.map(shown) }));
  const next = [first[0]!, withTasks('b', 2, 0.4)];
  let after: Fragments | undefined;
  const two = leaderboardPages(head, next, before, (f) => (after = f), undefined, shown).read({ offset: 0 });
  expect(two.bytes.toString('utf8')).toBe(JSON.stringify({ ...head, total: 2, miners: next.map(shown) }));
  expect(after!.json[0]).toBe(before!.json[0]);
  expect(after!.json[1]).not.toBe(before!.json[1]);
});

it('sameJson: equal when JSON.stringify is, key order included', () => {
  expect(sameJson({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } })).toBe(true);
  expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
  expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  expect(sameJson({ a: [1, 2] }, { a: [1, 3] })).toBe(false);
  expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  expect(sameJson({ a: null }, { a: 0 })).toBe(false);
  expect(sameJson({ a: 0.1 + 0.2 }, { a: 0.3 })).toBe(false);
  expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
  expect(sameJson({}, {})).toBe(true);
  // Siblings at one depth with other keys, and a deeper object between them: every level compared
  // with its own keys.
  const deep = () => ({ x: { a: 1, b: { p: [{ q: 1 }] } }, y: { c: 3 }, z: [{ e: 1 }, { f: 2 }] });
  expect(sameJson(deep(), deep())).toBe(true);
  expect(sameJson(deep(), { ...deep(), y: { d: 3 } })).toBe(false);
  expect(sameJson(deep(), { ...deep(), z: [{ e: 1 }, { g: 2 }] })).toBe(false);
  expect(sameJson(deep(), { ...deep(), x: { a: 1, b: { p: [{ q: 2 }] } } })).toBe(false);
  // Random JSON values: sameJson agrees with comparing their serializations.
  const value = (depth: number, seed: number): unknown => {
    const r = (seed * 9301 + 49297) % 233280;
    if (depth > 2 || r % 5 === 0) return r % 3 === 0 ? null : r % 7;
    if (r % 2 === 0) return Array.from({ length: r % 3 }, (_, i) => value(depth + 1, r + i));
    return Object.fromEntries(
      Array.from({ length: 1 + (r % 3) }, (_, i) => [`k${(r + i) % 4}`, value(depth + 1, r * 3 + i)]),
    );
  };
  for (let i = 0; i < 400; i++) {
    const [a, b] = [value(0, i), value(0, i % 7 === 0 ? i : i + 1)];
    expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
  }
});
