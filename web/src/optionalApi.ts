// Reads of API 1.1 routes that a server may not have (per-miner history, validator agreement),
// through the generated client like every other read. A 404 means "not here": no such route on an
// older server, or nothing to show; the page then hides what would show them.
import { api, ApiError, read } from './api.js';

/** The body of a read, or null on a 404. */
async function optional<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T | null> {
  try {
    return await read(call);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** The miner's rank, S_N and final weight per snapshot, oldest first; null on a 404. */
export async function minerHistory(competitionId: string, hotkey: string) {
  const body = await optional(
    api.GET('/v1/competitions/{competitionId}/miners/{hotkey}/history', {
      params: { path: { competitionId, hotkey }, query: { limit: 500 } },
    }),
  );
  return body?.history ?? null;
}

/** Every validator's activity and agreement over the stages (default the final ones); null on a 404. */
export async function validatorAgreement(competitionId: string, stages?: string) {
  const body = await optional(
    api.GET('/v1/competitions/{competitionId}/validators', {
      params: { path: { competitionId }, query: stages ? { stages } : {} },
    }),
  );
  return body?.validators ?? null;
}

/**
 * The weights on chain with the metagraph they are under (its hotkeys name the uids); null on a
 * 404 (an older server) or a 409 (no metagraph recorded).
 */
export async function chainWeights(competitionId: string, stages?: string) {
  const path = { competitionId };
  try {
    // One after the other: without a metagraph only the first is asked, and answers 409.
    const chain = await read(
      api.GET('/v1/competitions/{competitionId}/weights/chain', { params: { path, query: stages ? { stages } : {} } }),
    );
    const metagraph = await read(api.GET('/v1/competitions/{competitionId}/metagraph', { params: { path } }));
    return { chain, metagraph };
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 409)) return null;
    throw e;
  }
}

/**
 * Whether the stage set holds no task: coverage lists a baseline pair for every task, so no pair
 * means no task. null on a 404 (a server without `/coverage`).
 */
export async function stagesEmpty(competitionId: string, stages?: string): Promise<boolean | null> {
  const body = await optional(
    api.GET('/v1/competitions/{competitionId}/coverage', {
      params: { path: { competitionId }, query: { ...(stages ? { stages } : {}), limit: 1 } },
    }),
  );
  return body ? body.summary.pairs === 0 : null;
}
