// Well-formed text. A JSON string may carry a lone UTF-16 surrogate (`"\ud800"`), which no UTF-8
// encoding has: SQLite would store U+FFFD in its place (the text silently changed) and canonical
// JSON (a snapshot's hash) has no form for it. Such text is refused where it comes in.

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `s` has a lone surrogate (Node 20 has no `String.prototype.isWellFormed` in this project's lib). */
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/** `s` with each lone surrogate replaced by U+FFFD, to name a bad key printably. */
export const toWellFormed = (s: string): string => s.replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD');

export const LONE_SURROGATE_MESSAGE =
  'contains a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair); send Unicode text';
