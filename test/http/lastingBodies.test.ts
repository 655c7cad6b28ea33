// The whole leaderboard kept across a competition's release (src/http/viewBodies.ts `lastingBodies`):
// the same body answers the same list, a write ends it, and it holds nothing of the released
// version (whose input's pairs are what the release gives back).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { viewBodies } from '../../src/http/viewBodies.js';
import type { RankedList, View } from '../../src/services/scores/views.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ranked = (n: number): RankedList => ({
  head: { competitionId: 'c', stages: ['evaluation'] },
  entries: Array.from({ length: n }, (_, i) => ({ hotkey: `m${i}`, rank: i + 1, normalizedScore: 1 - i / n })),
});
const whole = (version: object, list: RankedList): View => ({
  competitionId: 'c',
  version,
  key: 'leaderboard',
  kept: 'always',
  page: { offset: 0 },
  value: () => list,
});
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

it('answers the same list after a release with the body made before it, and a write ends it', async () => {
  const views = viewBodies();
  const list = ranked(300);
  const body = await views.body(whole({}, list));
  body.gzipPieces!.make();
  views.drop('c', true);
  expect(views.bytes('c')).toBe(0);
  expect(views.bodyNow(whole({}, ranked(300)))).toBeUndefined(); // another list: not the same scores
  expect(views.bodyNow(whole({}, list))).toBe(body);
  views.drop('c', true);
  expect(await views.body(whole({}, list))).toBe(body);
  views.drop('c');
  expect(views.bodyNow(whole({}, list))).toBeUndefined();
  expect(await views.body(whole({}, list))).not.toBe(body);
});

it('holds nothing of the released version: what it was made with can be collected', async () => {
  const views = viewBodies();
  const list = ranked(300);
  const held: { version?: object } = { version: { pairs: new Array(1000).fill(0) } };
  const released = new WeakRef(held.version!);
  const body = await views.body(whole(held.version!, list));
  views.drop('c', true);
  delete held.version;
  // Work the body started may still hold it for a while (its compressed forms are made on libuv's
  // pool, later on a loaded machine): collected within a second, where a leak never is.
  for (let i = 0; i < 100 && released.deref() !== undefined; i++) {
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  expect(released.deref()).toBeUndefined();
  expect(views.bodyNow(whole({}, list))).toBe(body);
});

it('keeps the lists within its byte budget, the least recently released going first', async () => {
  const views = viewBodies(undefined, 30_000);
  const [a, b] = [ranked(300), ranked(300)];
  const bodyA = await views.body({ ...whole({}, a), competitionId: 'a' });
  views.drop('a', true);
  await views.body({ ...whole({}, b), competitionId: 'b' });
  views.drop('b', true);
  expect(bodyA.bytes.length).toBeGreaterThan(15_000);
  expect(views.bodyNow({ ...whole({}, a), competitionId: 'a' })).toBeUndefined();
  expect(views.bodyNow({ ...whole({}, b), competitionId: 'b' })).toBeDefined();
});
