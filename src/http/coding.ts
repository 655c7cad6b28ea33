// Content coding for the representations of ./representation.ts: which coding a request accepts
// (Accept-Encoding, parsed once per distinct header), and the compression of a body's forms, at
// the kept forms' levels on libuv's threads, or at the fastest levels on the request path.
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { BROTLI_OPTIONS, GZIP_OPTIONS } from '../plugins/compression.js';
import type { Body } from './body.js';

export type Coding = 'br' | 'gzip';

/** What a request accepts: the coding to use (br before gzip), and whether gzip is acceptable. */
export interface Accepted {
  kind: Coding | null;
  gzip: boolean;
}
export const ACCEPTED: Record<'br' | 'brGzip' | 'gzip' | 'none', Accepted> = {
  br: { kind: 'br', gzip: false },
  brGzip: { kind: 'br', gzip: true },
  gzip: { kind: 'gzip', gzip: true },
  none: { kind: null, gzip: false },
};

/** Each coding only when acceptable (q > 0). */
function parseCoding(header: string): Accepted {
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name!.trim(), qp ? Number(qp.slice(2)) : 1);
  }
  const ok = (name: string) => (q.get(name) ?? q.get('*') ?? 0) > 0;
  if (ok('br')) return ok('gzip') ? ACCEPTED.brGzip : ACCEPTED.br;
  return ok('gzip') ? ACCEPTED.gzip : ACCEPTED.none;
}

/**
 * Accept-Encoding headers seen, and their coding: clients send a few distinct ones, again and
 * again. At most 256, of up to 200 characters each (a browser's is about 25).
 */
const codings = new Map<string, Accepted>();
const CODINGS_KEPT = 256;
const CODING_KEPT_LENGTH = 200;

export function coding(header: string | undefined): Accepted {
  if (!header) return ACCEPTED.none;
  let kind = codings.get(header);
  if (kind === undefined) {
    kind = parseCoding(header);
    if (header.length > CODING_KEPT_LENGTH) return kind;
    if (codings.size >= CODINGS_KEPT) codings.clear();
    codings.set(header, kind);
  }
  return kind;
}

/**
 * Bodies from this size on have their compressed forms made off the request path (`coded`):
 * compressing one on the request (gzip level 6 of a 124 kB leaderboard) would cost more than
 * everything else a cold read does.
 */
export const LAZY_FORM_BYTES = 32 * 1024;

export function compressSync(kind: Coding, bytes: Buffer): Buffer {
  return kind === 'br' ? brotliCompressSync(bytes, BROTLI_OPTIONS) : gzipSync(bytes, GZIP_OPTIONS);
}

/**
 * A large body's first reads, until its compressed form is made: the fastest levels, a fraction of
 * the CPU of the kept forms' (gzip level 1 against 6, brotli quality 1 against 5), for bytes a
 * little larger. A client that asks for a coding gets one (API.md: responses are compressed when
 * the request asks), and a body a write replaces after one read costs no more than that. A body
 * kept in pieces (`Body.gzipPieces`) is put together from them instead: the cost of the pieces a
 * write changed, far less than compressing the whole body.
 */
const FAST = { br: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }, gzip: { level: 1 } } as const;

export function compressFast(kind: Coding, body: Body): Buffer {
  if (kind === 'gzip' && body.gzipPieces) return body.gzipPieces.make();
  return kind === 'br' ? brotliCompressSync(body.bytes, FAST.br) : gzipSync(body.bytes, FAST.gzip);
}

/** Compresses on libuv's threads; `done` gets no bytes should zlib fail (the form is then not made). */
export function compressed(kind: Coding, bytes: Buffer, done: (payload: Buffer | undefined) => void): void {
  const back = (err: Error | null, payload: Buffer) => done(err ? undefined : payload);
  if (kind === 'br') brotliCompress(bytes, BROTLI_OPTIONS, back);
  else gzip(bytes, GZIP_OPTIONS, back);
}
