// SPEC 10's flag at its threshold: the delta is a float mean of fractions, and a validator exactly
// 0.2 from the others must be flagged even when the arithmetic lands a hair below 0.2.
import { describe, expect, it } from 'vitest';
import { AGREEMENT_MIN_SHARED, agreement, type ValidatorPairRuns } from '../../src/scoring/agreement.js';

/** Validators v and o each ran every one of `pairs` (task, miner) pairs `runs` times. */
function twoValidators(pairs: number, runs: number, vResolved: number, oResolved: number): ValidatorPairRuns[] {
  const rows: ValidatorPairRuns[] = [];
  for (let i = 0; i < pairs; i++) {
    const at = { taskId: `t${i}`, hotkey: 'm', runs };
    rows.push({ ...at, validatorId: 'v', resolved: vResolved }, { ...at, validatorId: 'o', resolved: oResolved });
  }
  return rows;
}

describe('the flag at its thresholds (SPEC 10)', () => {
  it('a delta of exactly 0.2 is flagged, though 3/10 - 1/10 is 0.19999999999999998 in floating point', () => {
    expect(3 / 10 - 1 / 10).toBeLessThan(0.2);
    const table = agreement(twoValidators(AGREEMENT_MIN_SHARED, 10, 3, 1), new Set());
    expect(table.get('v')).toEqual({ sharedPairs: 10, resolveRateDelta: expect.closeTo(0.2, 12), flagged: true });
    expect(table.get('o')).toEqual({ sharedPairs: 10, resolveRateDelta: expect.closeTo(-0.2, 12), flagged: true });
    // 7/10 - 5/10 rounds below 0.2 as well.
    expect(agreement(twoValidators(AGREEMENT_MIN_SHARED, 10, 7, 5), new Set()).get('v')!.flagged).toBe(true);
  });

  it('just under 0.2 (0.19) is not flagged, nor is 0.2 on one pair too few', () => {
    expect(agreement(twoValidators(AGREEMENT_MIN_SHARED, 100, 29, 10), new Set()).get('v')!.flagged).toBe(false);
    const few = agreement(twoValidators(AGREEMENT_MIN_SHARED - 1, 10, 3, 1), new Set()).get('v')!;
    expect(few).toMatchObject({ sharedPairs: AGREEMENT_MIN_SHARED - 1, flagged: false });
  });
});
