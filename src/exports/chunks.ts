// Text pieces gathered into chunks of about 64 KiB, and the pull-based stream that sends them:
// a chunk is made only when the stream asks for one, so a slow client holds the export back
// instead of letting it pile up in memory.
import { Readable } from 'node:stream';

export const CHUNK_BYTES = 64 * 1024;

/** Joins the pieces into UTF-8 chunks of at least CHUNK_BYTES (the last one smaller). */
export async function* chunked(pieces: AsyncIterable<string>): AsyncGenerator<Buffer> {
  let parts: string[] = [];
  let length = 0;
  for await (const piece of pieces) {
    parts.push(piece);
    // String length counts UTF-16 units: at most the byte count for the ASCII that dominates here,
    // and within a factor of 3 of it for any text, so a chunk stays well under 256 KiB.
    length += piece.length;
    if (length >= CHUNK_BYTES) {
      yield Buffer.from(parts.join(''), 'utf8');
      parts = [];
      length = 0;
    }
  }
  if (length > 0) yield Buffer.from(parts.join(''), 'utf8');
}

/**
 * The items, each after a turn of the event loop. A stream whose pages are read synchronously (the
 * SQLite store's promises are settled when they are handed out) and whose client keeps up would
 * otherwise never let another request in until its last byte: anyone may start a runs export.
 */
async function* paced<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
  for await (const item of items) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    yield item;
  }
}

/**
 * A byte stream over the chunks, pulling the next one only when the consumer wants more, and giving
 * the event loop a turn before each (paced).
 */
export function byteStream(chunks: AsyncIterable<Uint8Array>): Readable {
  return Readable.from(paced(chunks), { objectMode: false, highWaterMark: CHUNK_BYTES });
}
