// The benchmark's metagraph (bench/phases.ts, benchMetagraph): the server records it only when
// every hotkey is an ss58 address whose checksum holds and no uid or hotkey repeats, and each
// miner of the competition needs a uid for the weights on chain to burn nothing for want of one.
import { describe, expect, it } from 'vitest';
import { SIZES, buildCompetition } from '../bench/generate.js';
import { benchMetagraph } from '../bench/phases.js';
import { MetagraphInput, metagraphProblems } from '../src/snapshots/metagraph.js';

describe('benchMetagraph', () => {
  it('is a metagraph the server accepts, with a uid for every miner', () => {
    const c = buildCompetition(SIZES.reference, 1);
    const m = benchMetagraph(c);
    expect(MetagraphInput.safeParse(m).success).toBe(true);
    expect(metagraphProblems(m.neurons)).toEqual([]);
    const registered = new Set(m.neurons.map((n) => n.hotkey));
    expect(c.miners.filter((x) => !registered.has(x.hotkey))).toEqual([]);
    expect(m.neurons.find((n) => n.uid === m.burnUid)?.hotkey).not.toBe(undefined);
    expect(c.miners.some((x) => x.hotkey === m.neurons[0]!.hotkey)).toBe(false);
  });
});
