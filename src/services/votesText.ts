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

/**
 * The quote closing the JSON string opening at `at`, or -1 when the text ends first. Found by
 * `indexOf` (a string's characters are most of a batch's votes: a character at a time in a loop
 * here took some 0.3 ms of a 1,000-run batch); a quote after an odd number of backslashes is
 * escaped. Linear still: the backslashes counted back from a quote are the ones just before it.
 */
function stringEnd(text: string, at: number): number {
  for (let q = text.indexOf('"', at + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return -1;
}

/** The end (exclusive) of the JSON array or object opening at `at`, or -1 when the text ends first. */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return -1;
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
