// Responses compressed when the request asks (API.md 1.1): br before gzip, bodies of 1 KiB or more.
// Two ways, one setting. Score reads and snapshots keep their serialized body and compress it once
// per body (src/http/representation.ts): those routes say `compress: false` and get no hook at all, so
// a warm read pays nothing here. Every other route, lists, problems, exports and the dashboard's
// files without a precompressed copy, is compressed as it is sent by @fastify/compress: small
// bodies at once, large ones and streams (exports, a snapshot's input document) through zlib
// streams, whose work runs on libuv's threads rather than the event loop.
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { constants } from 'node:zlib';

/** Bodies smaller than this go out as they are: compression would save little and cost a round of CPU. */
export const MIN_COMPRESSED = 1024;
/** Brotli quality 5: most of quality 11's gain on JSON at a small fraction of its time. */
export const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };
export const GZIP_OPTIONS = { level: 6 };

/** JSON, problem+json, NDJSON exports and input documents, CSV, HTML, CSS, JavaScript; not Parquet (compressed already) nor event streams. */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/]json(?:;|$)|\/x-ndjson(?:;|$)|\/javascript(?:;|$)/u;

const ENCODINGS: ('br' | 'gzip')[] = ['br', 'gzip'];

/**
 * A route's `compress` for /metrics (src/routes/operations.ts): the fastest levels, at once rather
 * than through a stream (at level 1 the stream's rounds cost more than the compression). It is open
 * to anyone and counted by no rate limit, and a few hundred KB of text made anew each scrape: at the
 * levels above its compression cost 5-8 ms of CPU a scrape, at these about 1, for a few KB more on
 * the wire (test/reliability/metricsScrape.test.ts).
 */
export const FASTEST_COMPRESSION = {
  encodings: ENCODINGS,
  threshold: MIN_COMPRESSED,
  customTypes: COMPRESSIBLE,
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } },
  zlibOptions: { level: 1 },
  syncThreshold: 4 * 1024 * 1024,
};

export const compressionPlugin = fp(async (app: FastifyInstance) => {
  await app.register(compress, {
    global: true,
    // Request bodies are taken as sent: a signature covers their exact bytes.
    globalDecompression: false,
    encodings: ENCODINGS,
    threshold: MIN_COMPRESSED,
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
    customTypes: COMPRESSIBLE,
  });
});
