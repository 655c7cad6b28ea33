// Reads of `GET …/coverage` through the client: every pair of a stage set, or only its summary.
import { api, read, stagesQuery, type Coverage, type Stage } from '../api.js';

/** Every pair of the stage set, following `nextCursor` to the end. */
export async function loadCoverage(id: string, stages: Stage[] | null): Promise<Coverage> {
  const path = { competitionId: id };
  const first = await read(
    api.GET('/v1/competitions/{competitionId}/coverage', {
      params: { path, query: { ...stagesQuery(stages), limit: 10_000 } },
    }),
  );
  const pairs = [...first.pairs];
  let cursor = first.nextCursor;
  while (cursor) {
    const next = await read(
      api.GET('/v1/competitions/{competitionId}/coverage', {
        params: { path, query: { ...stagesQuery(stages), limit: 10_000, cursor } },
      }),
    );
    pairs.push(...next.pairs);
    cursor = next.nextCursor;
  }
  return { ...first, pairs, nextCursor: null };
}

/** Only a stage set's summary: one pair asked for, the summary covers them all. */
export async function loadSummary(id: string, stage: Stage): Promise<Coverage['summary']> {
  const body = await read(
    api.GET('/v1/competitions/{competitionId}/coverage', {
      params: { path: { competitionId: id }, query: { stages: stage, limit: 1 } },
    }),
  );
  return body.summary;
}
