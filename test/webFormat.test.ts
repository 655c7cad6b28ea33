// The dashboard's reading of a weights map (web/src/format.ts): a miner without a weight reads 0,
// whatever its hotkey, including those that name Object.prototype's members.
import { describe, expect, it } from 'vitest';
import { weightOf } from '../web/src/format.js';

describe('weightOf', () => {
  const weights = JSON.parse('{"__proto__": 0.25, "m1": 0.75}') as Record<string, number>;

  it.each([
    ['__proto__', 0.25],
    ['m1', 0.75],
    ['constructor', 0],
    ['toString', 0],
    ['hasOwnProperty', 0],
    ['nobody', 0],
  ])('%s reads %d', (hotkey, weight) => {
    expect(weightOf(weights, hotkey)).toBe(weight);
  });
});
