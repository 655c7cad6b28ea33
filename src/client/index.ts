// A typed client for the API, generated from openapi/openapi.json (src/client/schema.d.ts).
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export type { paths, components } from './schema.js';

export function createScoringClient(baseUrl: string, token?: string) {
  return createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

export type ScoringClient = ReturnType<typeof createScoringClient>;
