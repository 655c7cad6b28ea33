// CSV per RFC 4180: fields joined by commas, records ended by CRLF, a field quoted when it holds
// a comma, a double quote, CR or LF, with its double quotes doubled. Null is the empty field;
// booleans are `true`/`false`; numbers as JavaScript prints them. Text is UTF-8, without a BOM.
//
// A spreadsheet opening the file takes a cell beginning with `=`, `+`, `-` or `@` (or a tab or CR
// before one) as a formula to run (CSV injection, OWASP): such a text field is written with a
// single quote before it. A text field already beginning with a single quote gets one too, so the
// rule reverses exactly: a text field beginning with `'` lost one leading `'` to the export.
// Numbers are values, never formulas: a negative number is written as it is.

export type CsvValue = string | number | boolean | null;

const NEEDS_QUOTES = /[",\r\n]/;
/** Text a spreadsheet would run as a formula, or that begins with the escaping quote itself. */
const FORMULA_LIKE = /^[=+\-@\t\r']/;

export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_LIKE.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record with its CRLF. */
export function csvRecord(values: readonly CsvValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvField(values[i]!);
  return `${line}\r\n`;
}
