// A body schema's fast check: a hand-written test that a body is of the schema's well-formed shape,
// exactly as the schema would return it. zod parses a body into a copy of every object in it; for
// a batch of runs that copy is as much work as the rest of the request's validation. Where the
// check says yes, src/plugins/validation.ts takes the body as it is; where it says no, the schema
// parses it, and is what accepts, refuses and words every error. A check may refuse what the
// schema accepts (the schema then parses it), never the other way round: its tests prove that
// whatever it accepts, the schema accepts and returns deep-equal.
import type { ZodType } from 'zod';

/** True only for data the schema accepts and returns unchanged (deep-equal, the same keys). */
export type FastCheck = (data: unknown) => boolean;

const checks = new WeakMap<ZodType, FastCheck>();

/** `schema`, with `check` as its fast check. */
export function withFastCheck<S extends ZodType>(schema: S, check: FastCheck): S {
  checks.set(schema, check);
  return schema;
}

/** The fast check of a route's body schema, if it has one. */
export const fastCheckOf = (schema: unknown): FastCheck | undefined =>
  typeof schema === 'object' && schema !== null ? checks.get(schema as ZodType) : undefined;
