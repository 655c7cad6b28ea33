// Reads of API 1.1 routes that this server may not have yet (per-miner history, validator
// agreement). They go through openapi-fetch like every other read, typed here by API.md until the
// routes are in openapi/openapi.json; then the generated `paths` types take over on their own.
// A 404 means "not on this server": the page hides what would show them.
import createClient from 'openapi-fetch';
import type { paths } from '../../src/client/index.js';
import { ApiError, read } from './api.js';

export interface HistoryPoint {
  seq: number;
  takenAt: string;
  rank: number | null;
  normalizedScore: number | null;
  finalWeight: number;
}
export interface ValidatorRow {
  id: string;
  name: string;
  hotkey: string | null;
  excluded: boolean;
  runs: number;
  baselineRuns: number;
  minerRuns: number;
  miners: number;
  tasks: number;
  resolveRate: number | null;
  agreement: { sharedPairs: number; resolveRateDelta: number | null; flagged: boolean };
}

type Get<P, Q, B> = {
  get: { parameters: { path: P; query?: Q }; responses: { 200: { content: { 'application/json': B } } } };
};
type HistoryPath = '/v1/competitions/{competitionId}/miners/{hotkey}/history';
type ValidatorsPath = '/v1/competitions/{competitionId}/validators';
type Optional = {
  [K in HistoryPath]: K extends keyof paths
    ? paths[K]
    : Get<{ competitionId: string; hotkey: string }, { limit?: number }, unknown>;
} & {
  [K in ValidatorsPath]: K extends keyof paths
    ? paths[K]
    : Get<{ competitionId: string }, { stages?: string }, unknown>;
};

const client = createClient<Optional>({ baseUrl: location.origin });

/** The first array in a body: the list itself, or its one list-valued field (`entries`, `validators`…). */
function listOf<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  const arrays = Object.values((body ?? {}) as Record<string, unknown>).filter(Array.isArray);
  return (arrays[0] ?? []) as T[];
}

/** null when the server has no such route (404). */
async function optional<T>(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<T[] | null> {
  try {
    return listOf<T>(await read(call));
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

export const minerHistory = (competitionId: string, hotkey: string) =>
  optional<HistoryPoint>(
    client.GET('/v1/competitions/{competitionId}/miners/{hotkey}/history', {
      params: { path: { competitionId, hotkey }, query: { limit: 500 } },
    } as never),
  );

export const validatorAgreement = (competitionId: string, stages?: string) =>
  optional<ValidatorRow>(
    client.GET('/v1/competitions/{competitionId}/validators', {
      params: { path: { competitionId }, query: stages ? { stages } : {} },
    } as never),
  );
