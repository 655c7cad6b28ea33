// Response headers checked once, for answers that send the same headers again and again (the kept
// reads, ./fastReads.ts). `writeHead(status, object)` checks every name and value against HTTP's
// grammar (two regular expressions a header) on every response: for a kept read's 17 headers, about
// a microsecond of a 29 µs read on PostgreSQL, the largest share of it the server adds to what Node
// does for its floor (docs/bench/README.md, 2026-12-06). Headers set on a response (`setHeader`)
// are checked as they are set and written without a second check; this hands Node a header map
// already made and checked, in the form `setHeader` leaves it: the same bytes, without the checks.
//
// That form is Node's own (the response's `kOutHeaders` map: lower-cased name -> [name, value]),
// not a documented API. It is used only if this Node has it and, with it, writes exactly the
// header block `writeHead(status, object)` writes for the same headers (checked once, as the module
// loads); otherwise `writeChecked` is `writeHead(status, object)` itself.
import { IncomingMessage, ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import { Socket } from 'node:net';

/** Headers as Node keeps those set on a response: lower-cased name -> [name, value]. Frozen, shared. */
type HeaderMap = Readonly<Record<string, readonly [string, string]>>;

/** Headers and their map, checked: for `writeChecked`. */
export interface CheckedHeaders {
  readonly headers: Readonly<Record<string, string>>;
  readonly map: HeaderMap;
}

/**
 * The maps' prototype: empty and without one of its own, so walking a map's names (Node's `for…in`)
 * finds its own names only, whatever is added to Object.prototype. A map made with
 * `Object.create(null)` would be a dictionary-mode object, which V8 walks the slow way: Node's
 * writeHead took 1.17 µs through such a map against 0.76 µs through this one (1.43 µs with the
 * checks), in a loop of 200,000.
 */
const NO_NAMES: object = Object.freeze(Object.create(null) as object);

/** Checked now, as `setHeader` checks them (throws on a bad name or value). */
function mapOf(headers: Readonly<Record<string, string>>): HeaderMap {
  const map = Object.create(NO_NAMES) as Record<string, readonly [string, string]>;
  for (const [name, value] of Object.entries(headers)) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    map[name.toLowerCase()] = Object.freeze([name, value] as const);
  }
  return Object.freeze(map);
}

type Head = (res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, map: HeaderMap) => void;

const plainHead: Head = (res, status, headers) => void res.writeHead(status, headers);

/** The response's header map symbol, when writing through it gives the bytes `writeHead` gives. */
function headThroughMap(): Head {
  const probe = () => {
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    const res = new ServerResponse(req);
    res.sendDate = false;
    return res as ServerResponse & Record<symbol, unknown> & { _header?: unknown };
  };
  const first = probe();
  const symbol = Object.getOwnPropertySymbols(first).find((s) => s.description === 'kOutHeaders');
  if (symbol === undefined || first[symbol] !== null) return plainHead;
  const headers = { 'content-type': 'application/json; charset=utf-8', ETag: '"x"', 'content-length': '2' };
  first.writeHead(200, headers);
  const second = probe();
  second[symbol] = mapOf(headers);
  second.writeHead(200);
  const same =
    typeof first._header === 'string' && first._header.includes('ETag: "x"\r\n') && first._header === second._header;
  if (!same) return plainHead;
  return (res, status, _headers, map) => {
    (res as unknown as Record<symbol, unknown>)[symbol] = map;
    res.writeHead(status);
  };
}

const head = headThroughMap();

/** Whether `writeChecked` skips the checks on this Node (else it is `writeHead(status, headers)`). */
export const headersPreChecked = head !== plainHead;

/** `headers` and their checked map, for `writeChecked`; throws where `setHeader` would. */
export function checkedHeaders(headers: Readonly<Record<string, string>>): CheckedHeaders {
  return Object.freeze({ headers, map: mapOf(headers) });
}

/** `res.writeHead(status, headers)`, with headers already checked: the same bytes. Nothing may be set on `res` before. */
export function writeChecked(res: ServerResponse, status: number, checked: CheckedHeaders): void {
  head(res, status, checked.headers, checked.map);
}
