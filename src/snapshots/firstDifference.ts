// The first place where two JSON values differ, in document order (object keys sorted), so a
// verifier can say which miner's weight or score does not match rather than just "differs".

export interface Difference {
  path: (string | number)[];
  expected: unknown;
  actual: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function firstDifference(expected: unknown, actual: unknown, path: (string | number)[] = []): Difference | null {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (i >= expected.length || i >= actual.length) {
        return { path: [...path, i], expected: expected[i], actual: actual[i] };
      }
      const d = firstDifference(expected[i], actual[i], [...path, i]);
      if (d) return d;
    }
    return null;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const k of keys) {
      if (!Object.hasOwn(expected, k) || !Object.hasOwn(actual, k)) {
        return { path: [...path, k], expected: expected[k], actual: actual[k] };
      }
      const d = firstDifference(expected[k], actual[k], [...path, k]);
      if (d) return d;
    }
    return null;
  }
  return expected === actual ? null : { path, expected, actual };
}
