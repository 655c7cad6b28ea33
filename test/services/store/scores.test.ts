// The score service over a real store, without HTTP: what a write does to the kept scores, and
// the one path from a write to every cache (the store's write event, the score cache, `onDrop`).
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RankedList, View } from '../../../src/services/scores/views.js';
import { CompetitionInputSchema } from '../../../src/schemas/competitions.js';
import { TaskInputSchema } from '../../../src/schemas/tasks.js';
import type { Scored } from '../../../src/services/scores/cache.js';
import { ADMIN, serviceKit, type ServiceKit } from '../../support/services.js';

let kit: ServiceKit;
beforeEach(async () => {
  kit = await serviceKit();
  await kit.seed('c', [
    ['b1', null, true],
    ['r1', 'alice', true, 50],
    ['r2', 'bob', false],
  ]);
  await kit.seed('other', [
    ['b1', null, true],
    ['r1', 'carol', true],
  ]);
});
afterEach(async () => kit.close());

const hotkeys = async (view: View) => ((await view.value()) as RankedList).entries.map((e) => e.hotkey);

it('keeps the scores between reads, and a run ingested drops them: the next read computes the new ones', async () => {
  const { scores } = kit.services;
  const first = await scores.leaderboard('c');
  expect(await hotkeys(first)).toEqual(['alice', 'bob']);
  // Kept: the same version until a write.
  expect((await scores.leaderboard('c')).version).toBe(first.version);
  expect((await scores.weights('c')).version).toBe(first.version);

  await kit.ingest('c', [['r3', 'dave', true, 10]]);
  const after = await scores.leaderboard('c');
  expect(after.version).not.toBe(first.version);
  expect(await hotkeys(after)).toEqual(['dave', 'alice', 'bob']);
});

it('tells onDrop of each write once, after the scores are dropped, and of no other competition', async () => {
  const { scores } = kit.services;
  const other = await scores.leaderboard('other');
  await scores.leaderboard('c');
  const told: { competitionId: string; kept: boolean }[] = [];
  // What a listener (the HTTP layer's bytes, src/http/viewBodies.ts) sees when it is told.
  scores.onDrop((competitionId) =>
    told.push({ competitionId, kept: scores.kept('leaderboard', competitionId) !== undefined }),
  );

  await kit.ingest('c', [['r3', 'dave', true]]);
  expect(told).toEqual([{ competitionId: 'c', kept: false }]);
  expect((await scores.leaderboard('other')).version).toBe(other.version);
});

it('drops the scores on every kind of write to the competition: a task change, a miner excluded', async () => {
  const { scores, tasks, miners } = kit.services;
  const before = await scores.leaderboard('c');
  await tasks.upsert('c', [TaskInputSchema.parse({ id: 'a', type: 'swebench_verified', complexity: 'long' })], ADMIN);
  const retasked = await scores.leaderboard('c');
  expect(retasked.version).not.toBe(before.version);

  await miners.setExclusion('c', 'alice', { excluded: true }, ADMIN);
  const excluded = await scores.leaderboard('c');
  expect(excluded.version).not.toBe(retasked.version);
  const alice = ((await excluded.value()) as RankedList).entries.find((e) => e.hotkey === 'alice') as
    { excluded: boolean } | undefined;
  expect(alice?.excluded).toBe(true);
});

it('keeps the settings across a run, a task or a miner written; a settings write reads them again', async () => {
  const { scores, competitions, tasks, miners } = kit.services;
  const settingsOf = async () => ((await scores.leaderboard('c')).version as Scored).competition;
  const first = await settingsOf();
  await kit.ingest('c', [['r3', 'dave', true, 10]]);
  await tasks.upsert('c', [TaskInputSchema.parse({ id: 'a', type: 'swebench_verified', complexity: 'long' })], ADMIN);
  await miners.setExclusion('c', 'bob', { excluded: true }, ADMIN);
  // The scores are new, read from the same settings.
  expect(await hotkeys(await scores.leaderboard('c'))).toEqual(['dave', 'alice', 'bob']);
  expect(await settingsOf()).toBe(first);

  await competitions.put('c', CompetitionInputSchema.parse({ name: 'c', burnRatio: 0.5 }), ADMIN);
  const changed = await settingsOf();
  expect(changed.burnRatio).toBe(0.5);
  expect(((await scores.weights('c')).value() as { burnWeight: number }).burnWeight).toBe(0.5);
});
