// A gzip member (RFC 1952) put together from raw deflate pieces (RFC 1951) made apart: each piece
// ends on a byte boundary with the compressor's state reset (zlib's full flush), so it decodes the
// same wherever it stands in the stream, and the pieces are concatenated as they are. A body made of
// parts that mostly stay the same from one version to the next (a leaderboard's entries after a
// write: ./leaderboardPages.ts) is then compressed at the cost of the parts that changed, not of the
// whole body. A piece of a part is made from that part's bytes alone, so the member is a function
// of the parts: the same parts give the same bytes.
import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * zlib's fastest level, ended with a full flush: byte-aligned, referring to nothing before it. An
 * 8 kB window (any inflater's is as large or larger): a piece is a few kB, and the stream zlib sets
 * up for each piece costs less with it (for a body of many pieces, more than their compression does).
 */
const PIECE_OPTIONS = { level: 1, windowBits: 13, finishFlush: constants.Z_FULL_FLUSH } as const;

/** `bytes` compressed as a piece: raw deflate, not final, ending on a byte boundary. */
export function deflatePiece(bytes: Buffer): Buffer {
  return deflateRawSync(bytes, PIECE_OPTIONS);
}

/** Most bytes one stored block holds (its LEN field is 16 bits). */
const STORED_MAX = 0xffff;

/**
 * `bytes` as a piece of stored (not compressed) blocks: for a few bytes (a body's head), where
 * compressing costs more than it saves. Not final; each block is byte-aligned.
 */
export function storedPiece(bytes: Buffer): Buffer {
  const blocks: Buffer[] = [];
  let at = 0;
  do {
    const n = Math.min(STORED_MAX, bytes.length - at);
    const header = Buffer.alloc(5);
    // BFINAL 0, BTYPE 00 (stored), padded to the byte; then LEN and its one's complement NLEN.
    header.writeUInt16LE(n, 1);
    header.writeUInt16LE(~n & 0xffff, 3);
    blocks.push(header, bytes.subarray(at, at + n));
    at += n;
  } while (at < bytes.length);
  return Buffer.concat(blocks);
}

/** gzip's header: deflate, no flags, no time, no extra flags, OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
/** The last block: empty, stored, final. */
const LAST = Buffer.from([1, 0, 0, 0xff, 0xff]);

/**
 * The gzip member of `plain`, whose deflate stream is `pieces` in order (each from `deflatePiece`
 * or `storedPiece`, decoding together to `plain`) then an empty final block; its trailer is the
 * CRC-32 and the length (mod 2^32) of `plain`.
 */
export function gzipMember(pieces: readonly Buffer[], plain: Buffer): Buffer {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(plain), 0);
  trailer.writeUInt32LE(plain.length % 2 ** 32, 4);
  return Buffer.concat([HEADER, ...pieces, LAST, trailer]);
}

/**
 * The gzip member of `whole` kept in pieces: its bytes up to `startAt` stored, each piece `k` (up to
 * `ends[k]`) as `piece` gives it (deflated, or one deflated before from the same bytes), the rest stored.
 */
export function gzipFromPieces(
  whole: Buffer,
  startAt: number,
  ends: readonly number[],
  piece: (k: number, bytes: Buffer) => Buffer,
): Buffer {
  const deflated = [storedPiece(whole.subarray(0, startAt))];
  let at = startAt;
  for (const [k, end] of ends.entries()) {
    deflated.push(piece(k, whole.subarray(at, end)));
    at = end;
  }
  deflated.push(storedPiece(whole.subarray(at)));
  return gzipMember(deflated, whole);
}
