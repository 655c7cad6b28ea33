// The benchmark's pooled signed-vs-bearer figure (bench/authCompare.ts, poolRounds): each mode's
// runs over its seconds across the rounds, never a mean of the rounds' rates or ratios.
import { describe, expect, it } from 'vitest';
import { poolRounds, type AuthCompare } from '../bench/authCompare.js';

const round = (runs: number, bearer: number, presigned: number, signed: number): AuthCompare => ({
  batches: runs / 1000,
  runsPerMode: runs,
  bearerRunsPerSecond: bearer,
  presignedRunsPerSecond: presigned,
  signedRunsPerSecond: signed,
  ratio: Math.round((signed / bearer) * 1000) / 1000,
  serverRatio: Math.round((presigned / bearer) * 1000) / 1000,
});

describe('poolRounds', () => {
  it('takes every run over every second of each mode', () => {
    // Bearer: 10 s and 20 s for 200,000 runs (6,667/s); presigned 20 s and 10 s (the same);
    // signed 40 s and 10 s (4,000/s). The mean of the rounds' ratios would be 1.25 and 0.75.
    const p = poolRounds([round(100_000, 10_000, 5_000, 2_500), round(100_000, 5_000, 10_000, 10_000)]);
    expect(p.runsPerMode).toBe(200_000);
    expect(p.batches).toBe(200);
    expect(p.bearerRunsPerSecond).toBe(6667);
    expect(p.presignedRunsPerSecond).toBe(6667);
    expect(p.signedRunsPerSecond).toBe(4000);
    expect(p.serverRatio).toBe(1);
    expect(p.ratio).toBe(0.6);
    expect(p.rounds).toEqual([
      { ratio: 0.25, serverRatio: 0.5 },
      { ratio: 2, serverRatio: 2 },
    ]);
  });

  it('gives one round back as it was', () => {
    const one = round(96_000, 24_000, 23_000, 22_000);
    const { rounds, ...pooled } = poolRounds([one]);
    expect(pooled).toEqual(one);
    expect(rounds).toEqual([{ ratio: one.ratio, serverRatio: one.serverRatio }]);
  });
});
