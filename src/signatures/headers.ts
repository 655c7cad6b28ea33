// Reading request headers for Epistula: case-insensitive names, and a repeated header told apart
// from a single one (Node gives repeated unknown headers as one comma-joined string or an array).
/** Node's IncomingHttpHeaders, Fastify's request.headers and plain records all fit. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of one header, `undefined` when absent, or `null` when it was sent more than once. */
export function readHeader(headers: HeaderBag, name: string): string | null | undefined {
  const lower = name.toLowerCase();
  let value = headers[lower];
  if (value === undefined) {
    for (const key of Object.keys(headers)) {
      if (key !== lower && key.toLowerCase() === lower) {
        if (value !== undefined) return null;
        value = headers[key];
      }
    }
  }
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 1 && typeof value[0] === 'string' ? value[0] : null;
  return null;
}

/**
 * True when the request carries any `Epistula-*` header, so the auth layer can choose between a
 * bearer token and a signature. Any name with the prefix counts, so a misspelt header leads to a
 * "signature-missing" naming the expected one rather than to "bearer token required". A request
 * with both an Epistula header and Authorization must be refused (`verifyEpistula` does so).
 */
export function hasEpistulaHeaders(headers: HeaderBag): boolean {
  // Asked on every kept read (src/http/fastReads.ts), over a browser's dozen or more headers: no
  // array of the names, and only a name starting with e or E is lower-cased and looked at (in a
  // loop over 15 browser headers, 350 → 80 ns a call). Own names only, as Object.keys gave.
  for (const key in headers) {
    if ((key.charCodeAt(0) | 0x20) !== 0x65 || headers[key] === undefined) continue;
    if (Object.hasOwn(headers, key) && key.toLowerCase().startsWith('epistula-')) return true;
  }
  return false;
}
