// A small RFC 4180 reader for tests: quoted fields may hold commas, doubled quotes, CR and LF.
// Records end with CRLF (a bare LF too); a file ends with a line end. Strict: a stray quote in an
// unquoted field, or text after a closing quote, is an error.
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      for (i++; ; i++) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] !== '"') break;
          i++;
        }
        field += text[i];
      }
      i++;
    } else {
      while (i < text.length && !',\r\n'.includes(text[i]!)) {
        if (text[i] === '"') throw new Error(`stray quote at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') i++;
    else if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (text[i] === '\n') i++;
    else throw new Error(`unexpected ${JSON.stringify(text[i] ?? 'end of text')} at ${i}`);
    if (text[i - 1] === '\n') {
      records.push(record);
      record = [];
    }
  }
  return records;
}

/** Records as objects keyed by the header row. */
export function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('no header row');
  for (const [n, r] of rows.entries())
    if (r.length !== header.length) throw new Error(`record ${n + 1} has ${r.length} fields`);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!])));
}
