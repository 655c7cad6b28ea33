import { describe, expect, it } from 'vitest';
import { clamp } from '../../src/scoring/clamp.js';

// Every bound used by SPEC 3–5, met just inside and from beyond:
// −4 (penalty floor, S_C floor), −2 (r floor, bonus floor, penalty ceiling), 2 (r ceiling),
// 3 (bonus ceiling, S_C ceiling).
describe('clamp', () => {
  it.each([
    // value, lo, hi, expected
    [-3.999, -4, 3, -3.999],
    [-4, -4, 3, -4],
    [-4.001, -4, 3, -4],
    [-7, -4, -2, -4],
    [-2.001, -4, -2, -2.001],
    [-1.999, -4, -2, -2],
    [-1.999, -2, 2, -1.999],
    [-2.5, -2, 2, -2],
    [1.999, -2, 2, 1.999],
    [2, -2, 2, 2],
    [2.001, -2, 2, 2],
    [2.999, -2, 3, 2.999],
    [3.001, -2, 3, 3],
    [5, -4, 3, 3],
  ])('clamp(%f, %f, %f) is %f: values inside [lo, hi] pass, beyond are cut to the bound', (v, lo, hi, want) => {
    expect(clamp(v, lo, hi)).toBe(want);
  });

  it('passes NaN through instead of disguising it as a bound', () => {
    expect(clamp(Number.NaN, -2, 2)).toBeNaN();
  });
});
