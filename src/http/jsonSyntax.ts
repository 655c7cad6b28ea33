// Where a JSON text JSON.parse refused first departs from JSON (RFC 8259), to say so in a 400. V8's
// own message names no position for the commonest mistakes (`NaN`, `Infinity`, a single quote: "Unexpected
// token 'N', ... is not valid JSON"), so the text is scanned again, once, only when it was refused.
// Iterative: a body may open 100,000 brackets.

const ESCAPES = '"\\/bfnrt';
const WORDS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };

/** The offset (UTF-16 code units) of the first character that is not JSON, or null when the text is JSON. */
export function jsonSyntaxErrorAt(text: string): number | null {
  const n = text.length;
  let i = 0;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const digit = () => text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39;
  const digits = () => {
    if (!digit()) return false;
    while (digit()) i++;
    return true;
  };
  // Each reader answers false with `i` where V8 places the fault (test/jsonSyntax.test.ts holds them to it).
  /** At a `"`: past the string. */
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) i++;
      else if (text[i + 1] === 'u') {
        i += 2;
        for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) return false;
      } else if (ESCAPES.includes(text[i + 1] ?? 'x')) i += 2;
      else {
        i++;
        return false;
      }
    }
    return false;
  };
  const number = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (!digits()) return false;
    if (text[i] === '.') {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!digits()) return false;
    }
    return true;
  };
  const key = (): boolean => {
    if (!string()) return false;
    ws();
    if (text[i] !== ':') return false;
    i++;
    return true;
  };
  const scalar = (): boolean => {
    if (text[i] === '"') return string();
    const word = WORDS[text[i] ?? ''];
    if (word) {
      // As V8 reads them: the fault is the first character that departs from the word.
      let j = 0;
      while (j < word.length && text[i + j] === word[j]) j++;
      i += j;
      return j === word.length;
    }
    return (text[i] === '-' || digit()) && number();
  };
  const open: string[] = [];
  for (;;) {
    // A value is expected here.
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      ws();
      if (text[i] === (c === '{' ? '}' : ']')) i++;
      else {
        open.push(c);
        if (c === '{' && !key()) return i;
        continue;
      }
    } else if (!scalar()) return i;
    // After a value: a comma, a closing bracket, or the end.
    for (;;) {
      ws();
      const top = open.at(-1);
      if (top === undefined) return i < n ? i : null;
      if (text[i] === (top === '{' ? '}' : ']')) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',') return i;
      i++;
      ws();
      if (top === '{' && !key()) return i;
      break;
    }
  }
}

/** Why a body is not JSON, for a 400: the line and column of the first fault, what is there, and what JSON takes. */
export function jsonSyntaxProblem(text: string): string {
  const at = jsonSyntaxErrorAt(text);
  const rules = 'JSON (RFC 8259) has no NaN, Infinity, comments, single quotes or trailing commas';
  if (at === null) return `not valid JSON; ${rules}`;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  // Shown escaped: JSON.stringify escapes C0 controls and lone surrogates; C1 and bidi controls are replaced.
  const shown = JSON.stringify(text.slice(at, at + 12)).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
  const found = at >= text.length ? 'the body ends there (truncated?)' : `found ${shown}`;
  return `not valid JSON at line ${line}, column ${column}: ${found}; ${rules}`;
}
