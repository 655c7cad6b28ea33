// The JSON syntax locator behind a 400 for a body that is not JSON (src/http/jsonSyntax.ts): it
// agrees with JSON.parse on what is JSON, and names the first character that is not.
import { describe, expect, it } from 'vitest';
import { jsonSyntaxErrorAt } from '../src/http/jsonSyntax.js';
import { prng } from './support/prng.js';

const valid = [
  '0',
  '-1.5e+3',
  '"a\\u00e9\\n"',
  'true',
  ' null ',
  '[]',
  '{}',
  '[1, [2, {"a": [3, {}]}], "x"]',
  '{"a": {"b": [true, false, null]}, "c": ""}',
  '['.repeat(100_000) + ']'.repeat(100_000),
];
const invalid: [string, number][] = [
  ['', 0],
  ['NaN', 0],
  ['[1, Infinity]', 4],
  ['{"a": 1,}', 8],
  ['[1,]', 3],
  ["{'a': 1}", 1],
  ['01', 1],
  ['1.', 2],
  ['1e+', 3],
  ['-', 1],
  ['"a\\x"', 3],
  ['"a\u0001"', 2],
  ['"\\u12g4"', 5],
  ['{"a" 1}', 5],
  ['{"a": 1} x', 9],
  ['[1 2]', 3],
  ['{"a": [1}', 8],
  ['"open', 5],
  ['['.repeat(100_000), 100_000],
];

describe('jsonSyntaxErrorAt', () => {
  it.each(valid.map((v) => [v.slice(0, 40), v]))('takes what JSON.parse takes: %s', (_label, text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonSyntaxErrorAt(text)).toBeNull();
  });
  it.each(invalid.map(([t, at]) => [t.slice(0, 40), t, at] as const))('finds the fault in %s', (_l, text, at) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxErrorAt(text)).toBe(at);
  });
  it('agrees with JSON.parse on texts cut and spliced at random', () => {
    const rng = prng(0x150f);
    const source = JSON.stringify({
      runs: [{ runId: 'r\u00e9', tokens: { input: 1, output: 2.5e3 }, ok: [true, null] }],
    });
    const junk = [',', ']', '}', '{', '[', '"', ':', 'N', '-', '0', ' ', '\\', 'e'];
    for (let k = 0; k < 5000; k++) {
      let text = source;
      for (let e = rng.int(1, 3); e > 0; e--) {
        const at = rng.below(text.length + 1);
        text = rng.chance(0.5)
          ? text.slice(0, at) + rng.pick(junk) + text.slice(at)
          : text.slice(0, at) + text.slice(at + 1);
      }
      let ok = true;
      let v8At: number | null = null;
      try {
        JSON.parse(text);
      } catch (e) {
        ok = false;
        const m = / at position (\d+)/.exec((e as Error).message);
        if (m) v8At = Number(m[1]);
      }
      const at = jsonSyntaxErrorAt(text);
      expect(at === null, text).toBe(ok);
      // Where V8 names a position (not for an unexpected token: the case this is for), the same one.
      if (v8At !== null) expect(at, text).toBe(v8At);
    }
  });
});
