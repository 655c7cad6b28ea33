// A serialized response body: UTF-8 bytes made once per view version (./viewBodies.ts) and its
// strong ETag (its compressed forms are kept beside it: ./representation.ts). A string would be
// encoded again on every send; for a 120 kB leaderboard that encoding would be the largest cost of
// a warm read.
import { createHash } from 'node:crypto';

export interface Body {
  bytes: Buffer;
  /** Strong ETag: a digest of the bytes, so it changes exactly when the body does. */
  etag: string;
  /**
   * The gzip form made from pieces kept per part (./gzipPieces.ts), when the body has them (the
   * whole leaderboard: ./leaderboardPages.ts): what a read gets before the kept form is made.
   * `unchanged`: the share of its pieces whose parts are those of the body before it (1 with no
   * piece): each is taken from there once made, so those are the pieces the next body can take.
   */
  gzipPieces?: { make: () => Buffer; unchanged: () => number };
}

export function jsonBody(value: unknown): Body {
  return textBody(JSON.stringify(value));
}

/** A body already serialized (e.g. a stored snapshot, whose exact bytes its hash covers). */
export function textBody(json: string): Body {
  return bytesBody(Buffer.from(json, 'utf8'));
}

/** A body from its UTF-8 bytes (e.g. a leaderboard page put together from serialized entries). */
export function bytesBody(bytes: Buffer): Body {
  const etag = `"${createHash('sha1').update(bytes).digest('base64url')}"`;
  return { bytes, etag };
}
