// The walk-through with the types openapi-typescript generates into ./client at test time, used
// through openapi-fetch (the package's own client, src/client/, is the same pair): type-checked
// with tsc, then run against a live server.
import createClient from 'openapi-fetch';
import type { components, paths } from './client/schema.js';
import { sampleRuns, TASKS, type FlowResult } from '../sample.js';

// @ts-expect-error a miner run without minerHotkey
// prettier-ignore
export const noHotkey: components['schemas']['RunResultInput'] = { runId: 'x', taskId: 't', kind: 'miner', resolved: true };

const client = (baseUrl: string, token?: string) =>
  createClient<paths>({ baseUrl, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

/** The body of a 2xx answer; anything else throws with the problem it carried. */
function must<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${r.response.status}: ${JSON.stringify(r.error)}`);
  return r.data;
}

export async function flow(baseUrl: string, adminToken: string): Promise<FlowResult> {
  const competitionId = 'gen-openapi-typescript';
  const path = { competitionId };
  const admin = client(baseUrl, adminToken);
  must(
    await admin.PUT('/v1/competitions/{competitionId}', {
      params: { path },
      body: { name: 'openapi-typescript', burnRatio: 0.1 },
    }),
  );
  must(await admin.PUT('/v1/competitions/{competitionId}/tasks', { params: { path }, body: { tasks: TASKS } }));
  const { apiKey } = must(await admin.POST('/v1/validators', { body: { name: 'openapi-typescript' } }));
  // openapi-fetch parses every body as JSON unless told: a text or binary one needs `parseAs`.
  const backup = must(await admin.GET('/v1/admin/backup', { parseAs: 'arrayBuffer' }));

  const validator = client(baseUrl, apiKey);
  const runs = sampleRuns();
  const posted = must(
    await validator.POST('/v1/competitions/{competitionId}/runs', { params: { path }, body: { runs } }),
  );
  const conflict = await validator.POST('/v1/competitions/{competitionId}/runs', {
    params: { path },
    body: { runs: [{ ...runs[0]!, resolved: false }] },
  });

  const pub = client(baseUrl);
  const hotkey = 'alice';
  const taskId = 'short-1';
  return {
    posted,
    conflict: conflict.response.status,
    leaderboard: must(await pub.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })),
    miner: must(
      await pub.GET('/v1/competitions/{competitionId}/miners/{hotkey}', {
        params: { path: { competitionId, hotkey } },
      }),
    ),
    task: must(
      await pub.GET('/v1/competitions/{competitionId}/tasks/{taskId}', { params: { path: { competitionId, taskId } } }),
    ),
    weights: must(await pub.GET('/v1/competitions/{competitionId}/weights', { params: { path } })),
    metrics: must(await pub.GET('/metrics', { parseAs: 'text' })),
    backup: new Uint8Array(backup).subarray(0, 16),
    pinned: {
      metricsWithoutParseAs: await pub.GET('/metrics').then(
        () => 'parsed',
        (e: Error) => e.name,
      ),
    },
  };
}
