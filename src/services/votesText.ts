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
// used. The value after the key is an array of objects holding one array of objects of strings,
// which the pattern below matches to its end, string by string, without backtracking.

/** A JSON string, escapes and all. */
const STRING = String.raw`"(?:[^"\\]+|\\.)*"`;
/** An array nesting no array: a criterion's votes. */
const FLAT = String.raw`\[(?:[^"\[\]]+|${STRING})*\]`;
const VOTES = new RegExp(String.raw`"rubricVotes"\s*:\s*(\[(?:[^"\[\]]+|${STRING}|${FLAT})*\])`, 'g');
/** An escape that may spell a letter of a key (U+0040 to U+007F): keys might be spelled otherwise. */
const LETTER_ESCAPE = /\\u00[4-7]/;

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
  VOTES.lastIndex = 0;
  for (let m = VOTES.exec(text); m !== null; m = VOTES.exec(text)) {
    if (found.length === voted) return null;
    found.push(m[1]!);
  }
  if (found.length !== voted) return null;
  let next = 0;
  return runs.map((r) => (r.rubricVotes === undefined ? null : found[next++]!));
}
