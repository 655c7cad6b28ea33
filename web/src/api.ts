// The one data layer: every read goes through the client generated from openapi/openapi.json.
import { createScoringClient, type components } from '../../src/client/index.js';
import { readToken } from './readToken.js';

export const api = createScoringClient(location.origin);
// The read token, when one is held, goes on every request as it is made (web/src/readToken.ts).
api.use({
  onRequest({ request }) {
    const token = readToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
});

type S = components['schemas'];
export type Competition = S['Competition'];
export type LeaderboardEntry = S['LeaderboardEntry'];
export type MinerTaskScore = S['MinerTaskScore'];
export type TaskDetail = S['TaskDetail'];
export type Weights = S['Weights'];
export type Stage = S['Stage'];
export type Coverage = S['Coverage'];
export type CoveragePair = S['CoveragePair'];
export type WeightsHistory = S['WeightsHistory'];
export type StabilityReport = S['StabilityReport'];
export type Problem = { type?: string; title?: string; status?: number; detail?: string };

/** A non-2xx answer, with its problem+json body when it had one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
  }
}

/** Unwraps an openapi-fetch result: the body, or an ApiError. */
export async function read<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  throw new ApiError(response.status, error ?? undefined);
}

/** The `stages` query of every score read: absent means the competition's final stages. */
export const stagesQuery = (stages: Stage[] | null) => (stages ? { stages: stages.join(',') } : {});
