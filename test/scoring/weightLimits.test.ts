import { describe, expect, it } from 'vitest';
import { weightLimits } from '../../src/scoring/weightLimits.js';

describe('weightLimits (SPEC 11)', () => {
  it('no limit recorded: null', () => {
    expect(weightLimits([65535], 10, {})).toBeNull();
    expect(weightLimits([65535], 10, { maxWeightLimit: null, minAllowedWeights: null })).toBeNull();
  });

  it('the largest integer over the sum against maxWeightLimit; a limit not recorded is null', () => {
    expect(weightLimits([65535, 65535], 10, { maxWeightLimit: 0.5 })).toEqual({
      maxWeightLimitMet: true,
      minAllowedWeightsMet: null,
    });
    expect(weightLimits([65535, 32768], 10, { maxWeightLimit: 0.5 })?.maxWeightLimitMet).toBe(false);
  });

  it('an empty vector holds no share', () => {
    expect(weightLimits([], 10, { maxWeightLimit: 0.1 })?.maxWeightLimitMet).toBe(true);
  });

  it('at least minAllowedWeights uids, or every neuron of a smaller subnet', () => {
    expect(weightLimits([1, 1], 10, { minAllowedWeights: 3 })?.minAllowedWeightsMet).toBe(false);
    expect(weightLimits([1, 1, 1], 10, { minAllowedWeights: 3 })?.minAllowedWeightsMet).toBe(true);
    expect(weightLimits([1, 1], 2, { minAllowedWeights: 8 })?.minAllowedWeightsMet).toBe(true);
  });
});
