// The background fill of a restored competition's in-memory pairs (src/services/scores/filling.ts)
// over a real store: it begins once the first reads after a start have gone by (`quietMs`), at once
// when a read needs the competition's input (`wait`), and never after `stop`.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { CompetitionSettings } from '../../../src/db/competitions.js';
import { pairFilling } from '../../../src/services/scores/filling.js';
import { serviceKit, type ServiceKit } from '../../support/services.js';

let kit: ServiceKit;
let competition: CompetitionSettings;
beforeEach(async () => {
  kit = await serviceKit();
  await kit.seed('c', [
    ['b0', null, true],
    ...Array.from({ length: 30 }, (_, i) => [`m${i}`, `miner-${i}`, i % 2 === 0] as [string, string, boolean]),
  ]);
  competition = (await kit.store.competitions.get('c'))!;
  // Nothing read the scores: no pair is in memory yet.
  expect(await kit.store.scoringInput.held('c')).toBe(0);
});
afterEach(async () => kit.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('waits quietMs before it fills, and fills at once when a read needs the input', async () => {
  const filling = pairFilling(kit.store, 60_000);
  filling.start([competition]);
  await pause(100);
  expect(await kit.store.scoringInput.held('c')).toBe(0);
  expect(filling.busy('c')).toBe(true);
  // A read of the input waits for the pairs: the fill starts now, not in a minute.
  const started = performance.now();
  await filling.wait('c');
  expect(performance.now() - started).toBeLessThan(10_000);
  expect(await kit.store.scoringInput.held('c')).toBe(30);
  expect(filling.busy('c')).toBe(false);
});

it('fills by itself once quietMs have gone by', async () => {
  const filling = pairFilling(kit.store, 150);
  filling.start([competition]);
  expect(await kit.store.scoringInput.held('c')).toBe(0);
  await vi.waitFor(async () => expect(await kit.store.scoringInput.held('c')).toBe(30), { timeout: 5000 });
});

it('a stop before the gate opens ends the queued fills without filling', async () => {
  const filling = pairFilling(kit.store, 60_000);
  filling.start([competition]);
  await filling.stop();
  expect(await kit.store.scoringInput.held('c')).toBe(0);
  expect(filling.busy('c')).toBe(false);
});
