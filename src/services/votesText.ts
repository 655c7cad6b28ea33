// A run batch's votes as the JSON text they were sent in, to be stored as such: serializing them
// again (JSON.stringify of some 250 kB of votes a 1,000-run batch of the reference competition)
// cost more than finding them in the body's text, and made as much again in garbage.
//
// The batch was validated (strict schemas: no key but the schema's, anywhere), so a literal
// `"rubricVotes"` followed by a colon is a run's key: its second quote follows a letter, so it
// closes a string, and a string ending `rubricVotes` that is a key is that key, for no other key
// ends so. A run whose votes are keyed otherwise (a letter written as a `\u00XX` escape) or twice
// (JSON.parse keeps the last) would put the count off, or the order: a text with such an escape
// anywhere is not searched, and one whose count of keys is not its count of voted runs is not
// used. The array after the key is found by a scan that skips strings and counts brackets to the
// one closing it: linear in the text, whatever it holds (a backtracking pattern, used before, took
// seconds on a few dozen characters of a value it could not match).

const KEY = '"rubricVotes"';
/** An escape that may spell a letter of a key (U+0040 to U+007F): keys might be spelled otherwise. */
const LETTER_ESCAPE = /\\u00[4-7]/;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The end (exclusive) of the JSON array or object opening at `at`, or -1 when the text ends first. */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, an escaped character at a time past a backslash.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if ((c === 0x5d || c === 0x7d) && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * The JSON text of each run's `rubricVotes` in `text` (the body `runs` were parsed from, as sent),
 * by run; null where a run has none. Null altogether when the text cannot be read so (see above).
 */
export function votesTexts(text: string, runs: readonly { rubricVotes?: unknown }[]): (string | null)[] | null {
  let voted = 0;
  for (const r of runs) if (r.rubricVotes !== undefined) voted++;
  // Most texts hold no escape at all: a plain search rules that out before the pattern would.
  if (voted === 0 || (text.includes('\\u00') && LETTER_ESCAPE.test(text))) return null;
  const found: string[] = [];
  for (let k = text.indexOf(KEY); k !== -1;) {
    let i = k + KEY.length;
    while (isSpace(text.charCodeAt(i))) i++;
    // A string `"rubricVotes"` not followed by a colon is a value, not the key.
    if (text.charCodeAt(i) !== 0x3a) {
      k = text.indexOf(KEY, k + 1);
      continue;
    }
    for (i++; isSpace(text.charCodeAt(i));) i++;
    const end = text.charCodeAt(i) === 0x5b ? valueEnd(text, i) : -1;
    if (end === -1 || found.length === voted) return null;
    found.push(text.slice(i, end));
    k = text.indexOf(KEY, end);
  }
  if (found.length !== voted) return null;
  let next = 0;
  return runs.map((r) => (r.rubricVotes === undefined ? null : found[next++]!));
}
