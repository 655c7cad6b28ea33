/**
 * Canonical JSON for hashing: RFC 8785, the JSON Canonicalization Scheme (JCS). The same value
 * always gives the same text, so a verifier in any language can recompute a hash. The rules
 * (also in docs/CANONICAL_JSON.md):
 *
 * - No whitespace anywhere outside strings.
 * - Objects: members sorted by key, comparing keys as sequences of UTF-16 code units (plain
 *   `<` on JavaScript strings); every key at most once.
 * - Arrays: elements in their given order.
 * - Strings: as `JSON.stringify` writes them (ECMAScript JSON.stringify): `"` and `\` escaped as
 *   `\"` and `\\`; U+0008, U+0009, U+000A, U+000C, U+000D as `\b \t \n \f \r`; every other
 *   code point below U+0020 as `\u00xx` with lower-case hex; everything else, including `/` and
 *   non-ASCII, as itself. A lone surrogate is an error (the text must be valid Unicode).
 * - Numbers: the ECMAScript shortest round-trip form (`Number.prototype.toString`, which is what
 *   `JSON.stringify` writes): `-0` as `0`, integers below 1e21 in plain digits, otherwise the
 *   shortest digits that read back as the same double, with an exponent (`1e+21`, `5e-324`)
 *   outside 1e-7 ≤ |x| < 1e21. NaN and ±Infinity are errors.
 * - `true`, `false`, `null` as themselves.
 * - Anything else (undefined, a function, a bigint, a symbol, a Date or other non-plain
 *   object) is an error rather than being silently dropped or converted.
 *
 * The bytes hashed are this text in UTF-8.
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function string(s: string, path: string): string {
  if (LONE_SURROGATE.test(s)) throw new TypeError(`canonical JSON: ${path} contains a lone surrogate`);
  return JSON.stringify(s);
}

function write(value: unknown, path: string): string {
  if (value === null || value === true || value === false) return String(value);
  switch (typeof value) {
    case 'string':
      return string(value, path);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${path} is ${value}, not a JSON number`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v, i) => write(v, `${path}[${i}]`)).join(',')}]`;
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError(`canonical JSON: ${path} is not a plain object`);
      }
      const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const record = value as Record<string, unknown>;
      const members = keys.map((k) => `${string(k, path)}:${write(record[k], `${path}.${k}`)}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON: ${path} is ${typeof value}, not a JSON value`);
  }
}
