// CSV per RFC 4180: fields joined by commas, records ended by CRLF, a field quoted when it holds
// a comma, a double quote, CR or LF, with its double quotes doubled. Null is the empty field;
// booleans are `true`/`false`; numbers as JavaScript prints them. Text is UTF-8, without a BOM.

export type CsvValue = string | number | boolean | null;

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record with its CRLF. */
export function csvRecord(values: readonly CsvValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvField(values[i]!);
  return `${line}\r\n`;
}
