// The dashboard's reading of a weights map (web/src/format.ts): a miner without a weight reads 0,
// whatever its hotkey, including those that name Object.prototype's members; and a count with its
// noun, singular for one.
import { describe, expect, it } from 'vitest';
import { counted, weightOf } from '../web/src/format.js';

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

describe('counted', () => {
  it.each([
    [0, 'ranked miner', undefined, '0 ranked miners'],
    [1, 'ranked miner', undefined, '1 ranked miner'],
    [2, 'run', undefined, '2 runs'],
    [1024, 'run', undefined, '1,024 runs'],
    [1, 'criterion', 'criteria', '1 criterion'],
    [3, 'criterion', 'criteria', '3 criteria'],
  ])('%d %s reads %s', (n, one, many, text) => {
    expect(counted(n, one, many)).toBe(text);
  });
});
