// Request validation: zod schemas through fastify-type-provider-zod, with the answers for recent
// path parameters and query strings kept. A score read's `{ competitionId }` and its query string
// are the same on most requests, and validating them afresh would be about a tenth of a warm
// leaderboard read's time.
//
// Only successful results are kept, deep-frozen, so a handler cannot change what the next request
// gets; failures are validated afresh every time (their messages name what was sent). Bodies and
// headers are never kept. A body schema with a fast check (src/schemas/fastCheck.ts) takes a body
// that passes it as sent, without zod's copy of it.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { fastCheckOf } from '../schemas/fastCheck.js';

/** Distinct inputs kept per route and part; the oldest goes first. */
const KEPT = 256;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A key naming the input exactly. Parameters and query strings are objects of strings (arrays of
 * them for repeated keys). Those of strings without a NUL are written as each key and value
 * followed by a NUL; anything else as \u0001 and its JSON, which holds no raw NUL, so the two
 * forms never meet. JSON.stringify had cost a warm read more than the rest of its validation.
 */
function keyOf(data: unknown): string {
  if (data === null || typeof data !== 'object') return `\u0001${JSON.stringify(data)}`;
  let key = '';
  for (const name in data) {
    const value = (data as Record<string, unknown>)[name];
    if (typeof value !== 'string' || name.includes('\0') || value.includes('\0'))
      return `\u0001${JSON.stringify(data)}`;
    key += `${name}\0${value}\0`;
  }
  return key;
}

export const cachingValidatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart === 'body') {
    // A body its schema's fast check (src/schemas/fastCheck.ts) passes is taken as sent: the
    // schema would return it deep-equal, after copying every object in it.
    const fast = fastCheckOf(route.schema);
    return fast ? (data: unknown) => (fast(data) ? { value: data } : validate(data)) : validate;
  }
  if (route.httpPart !== 'params' && route.httpPart !== 'querystring') return validate;
  const kept = new Map<string, ReturnType<typeof validate>>();
  return (data: unknown) => {
    const key = keyOf(data);
    const hit = kept.get(key);
    if (hit) return hit;
    const result = validate(data);
    if (result && typeof result === 'object' && 'value' in result && !('error' in result && result.error)) {
      deepFreeze(result.value);
      kept.set(key, result);
      if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
    }
    return result;
  };
};
