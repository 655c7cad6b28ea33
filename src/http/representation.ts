// Sends a serialized body (./body.ts) as HTTP wants it: with its strong ETag, a 304 when
// the client already holds it, and br or gzip when the client asks. Each form of a body (plain,
// br, gzip: its bytes, ETag and headers) is made once and kept as long as the body: a warm read
// allocates nothing to be answered. A large body's compressed forms are made off the request path
// once it is read again (`coded`): a cold read sends the fresh body coded at zlib's fastest level,
// or, for a body kept in pieces (the whole leaderboard), its gzip form put together from them.
// A route handler using it is not `async`: a warm read is answered before the handler returns.
// Its route says `compress: false` (src/plugins/compression.ts): the body is compressed here, by
// ./coding.ts (which coding a request accepts, and the compression itself).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MIN_COMPRESSED } from '../plugins/compression.js';
import type { Body } from './body.js';
import { ACCEPTED, coding, compressed, compressFast, compressSync, LAZY_FORM_BYTES, type Coding } from './coding.js';
import type { Maybe } from '../services/settled.js';

/**
 * What follows a body's digest in the ETag of each of its other forms (`etagOf`): its coding, and
 * for a fast form how it is made.
 */
const FORM_SUFFIXES = ['-gzip', '-br', '-gzip-pieces', '-gzip-fast', '-br-fast'] as const;

const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * True when an If-None-Match header names any form of the body whose ETag is `etag` (plain, a
 * coding, a fast form: `etagOf`), weak or strong, alone or in a list, or is `*`. Every form holds
 * the same content, so a client holding any of them holds the current representation (API.md
 * "Conditional and partial reads"), whatever coding it asks for now. Allocates nothing: a warm
 * read (./fastReads.ts) compares its header here.
 */
export function namesForm(header: string, etag: string): boolean {
  // `etag` is `"<digest>"`: a form's tag is `"<digest>` then a suffix (or none), then `"`.
  const stem = etag.length - 1;
  const n = header.length;
  let i = 0;
  while (i < n) {
    const c = header.charCodeAt(i);
    if (c === COMMA || c === 0x20 || c === 0x09) {
      i++;
      continue;
    }
    if (c === 0x2a) return true; // *
    if (c === 0x57 && header.charCodeAt(i + 1) === 0x2f) i += 2; // W/
    const close = header.charCodeAt(i) === QUOTE ? header.indexOf('"', i + 1) : -1;
    if (close < 0) {
      // Not an entity-tag: skip to the next one.
      const comma = header.indexOf(',', i);
      if (comma < 0) return false;
      i = comma + 1;
      continue;
    }
    if (close >= i + stem && sameStem(header, i, etag, stem)) {
      const rest = i + stem;
      if (rest === close) return true;
      for (let k = 0; k < FORM_SUFFIXES.length; k++) {
        const suffix = FORM_SUFFIXES[k]!;
        if (rest + suffix.length === close && header.startsWith(suffix, rest)) return true;
      }
    }
    i = close + 1;
  }
  return false;
}

/** Whether `header` has `etag`'s first `stem` characters at `at`. */
function sameStem(header: string, at: number, etag: string, stem: number): boolean {
  for (let k = 0; k < stem; k++) if (header.charCodeAt(at + k) !== etag.charCodeAt(k)) return false;
  return true;
}

/** A 304 with no body: the client's copy (If-None-Match) is current. */
export function notModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}

/**
 * Sends the body now when it is computed (a warm read: no promise, no microtask turn), else once it
 * is. Returns a promise in the second case, for the route handler to return (Fastify then answers
 * its rejection), nothing in the first. Either way the reply is sent by the time it settles.
 */
export function sendBody(
  request: FastifyRequest,
  reply: FastifyReply,
  pending: Maybe<Body>,
): Promise<void> | undefined {
  if (pending instanceof Promise)
    return pending.then((body) => {
      send(request, reply, body);
    });
  send(request, reply, pending);
  return undefined;
}

/**
 * The ETag of the representation sent: the body's own, or with the coding appended (`"…-br"`), and
 * for a fast form how it is made (`-fast`, `-pieces`). A strong ETag names one sequence of bytes
 * (RFC 9110 8.8.1), and the br, gzip and plain bytes differ; a form's bytes are a function of the
 * body's (for pieces: of its parts, which its bytes determine), so the body's digest names them.
 */
function etagOf(body: Body, kind: Coding | null, fast = false): string {
  // Each suffix made here is in FORM_SUFFIXES, which namesForm matches.
  if (!kind) return body.etag;
  const how = !fast ? '' : kind === 'gzip' && body.gzipPieces ? '-pieces' : '-fast';
  return `${body.etag.slice(0, -1)}-${kind}${how}"`;
}

/** What a read of a body answers: its status, headers and bytes (none for a 304). Shared: never changed. */
export interface Representation {
  status: 200 | 304;
  headers: Readonly<Record<string, string>>;
  payload: Buffer | undefined;
}

/** One form of a body: its ETag, and the two answers that carry it. */
interface Form {
  etag: string;
  ok: Representation;
  notModified: Representation;
}

/** A form's ETag and 304, for a form not made yet (`notModifiedAs`). */
type Named = Pick<Form, 'etag' | 'notModified'>;

/**
 * Each body's forms by coding, made on first demand; they go with the body. `pending`: the coded
 * forms of a large body asked for once (`asked`) or being made (`making`); `fast`: the forms its
 * reads get meanwhile.
 */
interface Forms extends Partial<Record<Coding | 'identity', Form>> {
  pending?: Partial<Record<Coding, 'asked' | 'making'>>;
  fast?: Partial<Record<Coding, Form>>;
  /** The 304s of forms a request would be sent that are not made yet (`notModifiedAs`). */
  unmade?: Partial<Record<Coding | 'br-fast' | 'gzip-fast', Named>>;
}
const formsOf = new WeakMap<Body, Forms>();

/** The headers a form's 200 and 304 both carry. */
function commonHeaders(etag: string) {
  return { etag, vary: 'accept-encoding, authorization', 'cache-control': 'no-cache' };
}

function makeForm(body: Body, kind: Coding | null, payload: Buffer, fast = false): Form {
  const etag = etagOf(body, kind, fast);
  const common = commonHeaders(etag);
  const headers = {
    ...common,
    'content-type': 'application/json; charset=utf-8',
    ...(kind ? { 'content-encoding': kind } : {}),
    'content-length': String(payload.length),
  };
  return {
    etag,
    ok: { status: 200, headers: Object.freeze(headers), payload },
    notModified: { status: 304, headers: Object.freeze(common), payload: undefined },
  };
}

/**
 * A client that prefers br and takes gzip gets a body's gzip pieces when at least this share of
 * them is unchanged since the body before: once made, these are taken from it, and deflating more
 * of them costs more than brotli's fastest quality over the whole body (about 0.4 of zlib's
 * fastest level over it). Where only such clients read, the first body so served makes every
 * piece, and the bodies after it take them.
 */
const PIECES_OVER_BR = 0.75;

/**
 * The `kind` form of a body, made now when the body is small. A large body's is made off the
 * request path (zlib on libuv's threads) once a second request asks for it; until it is there, its
 * reads get a fast form (`compressFast`, made once, under an ETag of its own): a body read once (a
 * write drops it before the next read) is compressed only at the fastest level, and one read again
 * and again is compressed well once. The fast form of a body kept in pieces is its gzip one when
 * the request accepts gzip, even where it prefers br if most pieces are unchanged: the cheapest to make.
 */
function coded(body: Body, forms: Forms, kind: Coding, gzip: boolean): Form {
  const made = forms[kind];
  if (made || body.bytes.length < LAZY_FORM_BYTES)
    return (forms[kind] ??= makeForm(body, kind, compressSync(kind, body.bytes)));
  const pending = (forms.pending ??= {});
  if (pending[kind] === undefined) pending[kind] = 'asked';
  else if (pending[kind] === 'asked') {
    pending[kind] = 'making';
    compressed(kind, body.bytes, (payload) => {
      if (payload) forms[kind] = makeForm(body, kind, payload);
      delete pending[kind];
    });
  }
  const fast = (forms.fast ??= {});
  const fastKind = fastKindOf(body, kind, gzip);
  return (fast[fastKind] ??= makeForm(body, fastKind, compressFast(fastKind, body), true));
}

/** The coding of the fast form a request for `kind` gets (`coded`). */
function fastKindOf(body: Body, kind: Coding, gzip: boolean): Coding {
  return gzip && body.gzipPieces && (kind === 'gzip' || body.gzipPieces.unchanged() >= PIECES_OVER_BR) ? 'gzip' : kind;
}

/**
 * The ETag and 304 of the form a request for `kind` is sent when that form is not made yet
 * (`coded`: the kept form of a small body, the fast form of a large one), without making it. A
 * 304 names the form a 200 to the same request would carry (RFC 9110 15.4.5), and compressing a
 * body to tell a client it holds it already would be work for nothing; a snapshot read makes its
 * body afresh for each request, so none of its forms is made when its If-None-Match is compared.
 * Kept with the body's forms: a warm read answered 304 allocates nothing.
 */
function notModifiedAs(body: Body, forms: Forms, kind: Coding, gzip: boolean): Named {
  const unmade = (forms.unmade ??= {});
  if (body.bytes.length < LAZY_FORM_BYTES) return (unmade[kind] ??= named(etagOf(body, kind)));
  const fastKind = fastKindOf(body, kind, gzip);
  const fast = forms.fast?.[fastKind];
  if (fast) return fast;
  return (unmade[fastKind === 'br' ? 'br-fast' : 'gzip-fast'] ??= named(etagOf(body, fastKind, true)));
}

function named(etag: string): Named {
  return { etag, notModified: { status: 304, headers: Object.freeze(commonHeaders(etag)), payload: undefined } };
}

/**
 * Makes a large body's kept compressed forms now, on libuv's threads, rather than from its second
 * read: for the bodies the first reads after a start are expected to ask for (the newest
 * competition's, made before the server listens). Settles once both are made; a small body needs
 * nothing (its forms are made on demand at no cost worth moving).
 */
export async function encodeAhead(body: Body): Promise<void> {
  if (body.bytes.length < LAZY_FORM_BYTES) return;
  let forms = formsOf.get(body);
  if (!forms) formsOf.set(body, (forms = {}));
  const held = forms;
  const make = (kind: Coding) =>
    new Promise<void>((resolve) => {
      if (held[kind] || held.pending?.[kind] === 'making') return resolve();
      compressed(kind, body.bytes, (payload) => {
        if (payload) held[kind] ??= makeForm(body, kind, payload);
        resolve();
      });
    });
  await Promise.all([make('gzip'), make('br')]);
}

/** Bytes of a body's compressed forms made so far (kept and fast). */
export function formBytes(body: Body): number {
  const forms = formsOf.get(body);
  let n = 0;
  for (const form of [forms?.br, forms?.gzip, forms?.fast?.br, forms?.fast?.gzip]) n += form?.ok.payload?.length ?? 0;
  return n;
}

/**
 * The answer to a request for `body`: the coding the request accepts, the ETag of those bytes, and
 * a 304 when the request holds them already. The one home of these rules for both ways a body
 * leaves: from the route's handler (`sendBody`) and from its onRequest hook (./fastReads.ts).
 *
 * A request that accepts a coding whose kept form is not made yet (a large body, `coded`) gets
 * the fast form, with its own ETag (a strong ETag names the bytes sent). A read holding the tag of
 * any form of the body, made or not, gets a 304 whatever it accepts (`namesForm`), so a client that
 * got the body in one form is not sent it again in another (once the kept form is made, or when it
 * asks for another coding); the 304 carries the ETag and Vary of the form the request would be
 * sent (`notModifiedAs` when that form is not made).
 */
export function represent(
  body: Body,
  method: string,
  acceptEncoding: string | undefined,
  ifNoneMatch: string | undefined,
): Representation {
  let forms = formsOf.get(body);
  if (!forms) formsOf.set(body, (forms = {}));
  const plain = (forms.identity ??= makeForm(body, null, body.bytes));
  const accepted = body.bytes.length >= MIN_COMPRESSED ? coding(acceptEncoding) : ACCEPTED.none;
  const { kind } = accepted;
  const made = kind ? forms[kind] : plain;
  // A 304 answers a read (RFC 9110 13.1.2); a POST that sends a kept body (a new snapshot) is not one.
  // Any form's tag is current (`namesForm`); the 304 names the form this request is sent, made or
  // not (a snapshot's body is made for each request), as a 200 to it would (RFC 9110 15.4.5).
  if (ifNoneMatch && (method === 'GET' || method === 'HEAD') && namesForm(ifNoneMatch, body.etag))
    return (made ?? notModifiedAs(body, forms, kind!, accepted.gzip)).notModified;
  return (made ?? coded(body, forms, kind!, accepted.gzip)).ok;
}
function send(request: FastifyRequest, reply: FastifyReply, body: Body): FastifyReply {
  const { method, headers } = request;
  const r = represent(body, method, headers['accept-encoding'], headers['if-none-match']);
  reply.headers(r.headers);
  return r.status === 304 ? notModified(reply) : reply.send(r.payload);
}
