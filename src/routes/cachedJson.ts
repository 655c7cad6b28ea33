import type { FastifyReply } from 'fastify';
import type { ScoredCompetition } from '../services/scores.js';

/**
 * Sends a score response, serialized once per cache entry: the entry is dropped by the next
 * write to the competition, so a cached body is never stale. Fastify sends a Buffer with a
 * JSON content type as it is, skipping the (costly, and here redundant) response validation;
 * the tests validate these bodies against the same schemas instead. The body is kept as UTF-8
 * bytes, not a string: a string would be encoded again on every send, and for a 120 kB
 * leaderboard that encoding was the largest cost of a warm read (bench/).
 */
export function sendCached(reply: FastifyReply, scored: ScoredCompetition, key: string, build: () => unknown): FastifyReply {
  let body = scored.responses.get(key);
  if (body === undefined) {
    body = Buffer.from(JSON.stringify(build()), 'utf8');
    scored.responses.set(key, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
