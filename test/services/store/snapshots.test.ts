// Snapshots over a real store, without HTTP: a snapshot's leaderboard, weights and weights on chain
// are the bodies the offline `score` builds from the snapshot's own input document
// (src/snapshots/bodies.ts), byte for byte once serialized.
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MetagraphInputSchema } from '../../../src/schemas/metagraph.js';
import { parseDocument } from '../../../src/snapshots/parseDocument.js';
import { scoreDocument } from '../../../src/snapshots/scoreDocument.js';
import { ADMIN, serviceKit, type ServiceKit } from '../../support/services.js';

let kit: ServiceKit;
beforeEach(async () => {
  kit = await serviceKit();
  await kit.seed('c', [
    ['b1', null, true],
    ['b2', null, false],
    ['r1', 'alice', true, 50],
    ['r2', 'bob', false],
    ['r3', 'bob', true, 400],
  ]);
});
afterEach(async () => kit.close());

/** The snapshot's published document and the offline score of its input document. */
async function takeAndScore() {
  const { snapshots } = kit.services;
  const document = JSON.parse(await snapshots.take('c', {}, ADMIN)) as Record<string, unknown> & { seq: number };
  const input = await snapshots.input('c', document.seq);
  const offline = scoreDocument(parseDocument(await text(input.open())));
  return { document, offline };
}

it('holds the offline score of its own input document: leaderboard and weights', async () => {
  // Scores read first are kept: the snapshot uses them (src/services/scores/fresh.ts).
  await kit.services.scores.leaderboard('c');
  const { document, offline } = await takeAndScore();
  expect(JSON.stringify(document.leaderboard)).toBe(JSON.stringify(offline.leaderboard));
  expect(JSON.stringify(document.weights)).toBe(JSON.stringify(offline.weights));
  expect(document.chain).toBeUndefined();
  expect(offline.chain).toBeUndefined();
  // No paging field from the live read.
  expect(document.leaderboard).not.toHaveProperty('total');
});

it('holds the offline score after a write the kept scores have not seen, with the weights on chain', async () => {
  await kit.services.scores.leaderboard('c');
  await kit.ingest('c', [['r4', 'carol', true, 10]]);
  const metagraph = {
    netuid: 1,
    block: 7,
    // The miners here are unregistered: their weight goes to burnUid.
    neurons: [{ uid: 0, hotkey: '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM' }],
  };
  await kit.services.metagraphs.put('c', MetagraphInputSchema.parse(metagraph), ADMIN);
  const { document, offline } = await takeAndScore();
  expect(JSON.stringify(document.leaderboard)).toBe(JSON.stringify(offline.leaderboard));
  expect(JSON.stringify(document.weights)).toBe(JSON.stringify(offline.weights));
  expect(offline.chain).toBeDefined();
  expect(JSON.stringify(document.chain)).toBe(JSON.stringify(offline.chain));
  const hotkeys = (document.leaderboard as { miners: { hotkey: string }[] }).miners.map((m) => m.hotkey);
  expect(hotkeys).toContain('carol');
});
