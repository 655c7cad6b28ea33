// A named schema: registered in zod's global registry under an id, it becomes the OpenAPI
// component of that name (fastify-type-provider-zod turns each use into a `$ref`), with its
// description. Every named schema in src/schemas/ is made here, so none lacks either.
import type { z } from 'zod';

/** `schema` as the component `id`, described; `more` adds JSON Schema keywords to the component. */
export function named<S extends z.ZodType>(
  id: string,
  description: string,
  schema: S,
  more: Record<string, unknown> = {},
): S {
  return schema.meta({ id, description, ...more });
}
