// Text that both storage engines keep exactly as sent. A JSON string may carry what no stored text
// can: a lone UTF-16 surrogate (`"\ud800"`), which has no UTF-8 form (SQLite would keep U+FFFD in
// its place, silently changed; canonical JSON, a snapshot's hash, has no form for it), and the NUL
// character (`"\u0000"`), which PostgreSQL's text refuses (SQLite keeps it: the engines would
// differ). Such text is refused where it comes in, naming the field.

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored as text, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000), which stored text cannot hold';
  if (LONE_SURROGATE.test(s))
    return 'contains a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair); send Unicode text';
  return null;
}

/** `s` with each NUL and lone surrogate replaced by U+FFFD, to name a bad key printably. */
export const printable = (s: string): string => s.replace(new RegExp(`\u0000|${LONE_SURROGATE.source}`, 'g'), '\uFFFD');

/**
 * Whether a JSON text may hold such a string: only an escape can (a raw NUL byte is not valid JSON,
 * and bytes that are not UTF-8 decode to U+FFFD), so a body without `\u0000` or a surrogate escape
 * (`\uD800` to `\uDFFF`, either case) needs no look at its strings. Nearly all bodies, including
 * those with other escapes (Python's json.dumps escapes every non-ASCII character).
 */
export const mayHoldBadText = (json: Buffer): boolean =>
  // One pass over a body with no escape at all (a run batch): the narrower looks only after one.
  json.includes('\\u') && (json.includes('\\u0000') || json.includes('\\ud') || json.includes('\\uD'));

/**
 * Text fit to display: no C0 or C1 control character (U+0000-U+001F, U+007F-U+009F: line breaks,
 * escapes that move a terminal's cursor) and no bidirectional embedding, override or isolate
 * (U+202A-U+202E, U+2066-U+2069: they reorder what follows, so a name can show as another).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is its purpose
export const DISPLAY_SAFE = /^[^\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]*$/;
export const DISPLAY_SAFE_MESSAGE =
  'must not contain control characters (U+0000-U+001F, U+007F-U+009F) or bidirectional controls (U+202A-U+202E, U+2066-U+2069)';
