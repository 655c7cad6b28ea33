// JS arrays as PostgreSQL array literals, for statement parameters (`$n::text[]`, `$n::int8[]`).
//
// A batch of runs goes to PostgreSQL as 17 arrays of 1,000 elements (./runs.ts), and pg's own
// encoding (its utils' `arrayString`) quotes every element and runs two regular-expression
// replacements on each, numbers included, building the literal by concatenation: about a quarter of
// the server's CPU on a PostgreSQL ingest (docs/PERFORMANCE.md). Here numbers and booleans go
// unquoted, a string is escaped only when it holds a backslash or a double quote, and the literal
// is joined once. The text PostgreSQL reads means the same values: NULL for null and undefined, an
// element in double quotes with `\` and `"` escaped for a string (so the string "NULL" stays a
// string), `true`/`false`, and a number's JavaScript text (as pg's `toString`). An array holding
// anything else (objects, nested arrays, buffers, dates) is left to pg, unchanged. An array of
// strings that need no escape, or of numbers and booleans alone (most of a batch's columns), is
// joined as it is, with no string made per element.

const ESCAPED = /[\\"]/g;
const NEEDS_ESCAPE = /[\\"]/;

/** `'text'`: every element a string with no `\` or `"`; `'bare'`: every one a number, boolean or bigint. */
function uniform(values: readonly unknown[]): 'text' | 'bare' | null {
  let text = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') {
      if (NEEDS_ESCAPE.test(v)) return null;
      text++;
    } else if (typeof v !== 'number' && typeof v !== 'boolean' && typeof v !== 'bigint') return null;
  }
  return text === values.length ? 'text' : text === 0 ? 'bare' : null;
}

/** The array literal for `values`, or `values` itself when an element is not a string, number, boolean or null. */
export function arrayLiteral(values: readonly unknown[]): string | readonly unknown[] {
  const kind = values.length === 0 ? null : uniform(values);
  // Array#join writes each number, boolean and bigint as String() does.
  if (kind === 'text') return `{"${values.join('","')}"}`;
  if (kind === 'bare') return `{${values.join(',')}}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') parts[i] = String(v);
    else return values;
  }
  return `{${parts.join(',')}}`;
}

/**
 * The text[] literal of each value's JSON text (`JSON.stringify`), NULL for null and undefined: the
 * literal `arrayLiteral` would give for the JSON strings, in one pass of the engine's own escaper
 * instead of a regular expression (a batch's rubric votes and grading are some 300 kB of JSON,
 * full of double quotes). JSON.stringify of a string quotes it and escapes `"` and `\` as an array
 * element needs; what else it would escape (control characters, lone surrogates) JSON text never
 * holds, since JSON.stringify wrote those as escapes already.
 */
export function jsonArrayLiteral(values: readonly unknown[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = v === null || v === undefined ? 'NULL' : JSON.stringify(JSON.stringify(v));
  }
  return `{${parts.join(',')}}`;
}

/** Statement parameters with every array as its literal (`arrayLiteral`); the rest as they are. */
export function withArrayLiterals(values: unknown[] | undefined): unknown[] | undefined {
  if (values === undefined) return undefined;
  let out: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Array.isArray(v)) continue;
    out ??= values.slice();
    out[i] = arrayLiteral(v);
  }
  return out ?? values;
}
