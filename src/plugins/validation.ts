// Request validation: zod schemas through fastify-type-provider-zod, with the answers for recent
// path parameters and query strings kept. A score read's `{ competitionId }` and its query string
// are the same on most requests, and validating them afresh was about a tenth of a warm
// leaderboard read's time (bench/: 29k req/s with validation against 33-34k without).
//
// Only successful results are kept, deep-frozen, so a handler cannot change what the next request
// gets; failures are validated afresh every time (their messages name what was sent). Bodies and
// headers are never kept.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';

/** Distinct inputs kept per route and part; the oldest goes first. */
const KEPT = 256;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export const cachingValidatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart !== 'params' && route.httpPart !== 'querystring') return validate;
  const kept = new Map<string, ReturnType<typeof validate>>();
  return (data: unknown) => {
    // Parameters and query strings are objects of strings (arrays of them for repeated keys).
    const key = JSON.stringify(data);
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
