// A validator's flow written against the client @hey-api/openapi-ts generates from
// openapi/openapi.json (into ./client, at test time). Type-checked with tsc, then run against a
// live server. The @ts-expect-error lines are runs the document must make ill-typed.
import { readFileSync } from 'node:fs';
import { createClient } from './client/client/index.js';
import * as sdk from './client/sdk.gen.js';
import type { RunResultInput } from './client/types.gen.js';

// prettier-ignore keeps each of these on one line: @ts-expect-error covers the next line that is not a comment.
// @ts-expect-error a miner run without minerHotkey
// prettier-ignore
export const noHotkey: RunResultInput = { runId: 'x', taskId: 't', kind: 'miner', resolved: true };
// @ts-expect-error a baseline run with a minerHotkey
// prettier-ignore
export const baselineHotkey: RunResultInput = { runId: 'x', taskId: 't', kind: 'baseline', minerHotkey: 'm', resolved: true };
// @ts-expect-error neither resolved nor rubricVotes
// prettier-ignore
export const ungraded: RunResultInput = { runId: 'x', taskId: 't', kind: 'baseline' };

export async function validatorFlow(baseUrl: string, adminToken: string, parquetFile: string) {
  const admin = createClient({ baseUrl, auth: () => adminToken });
  const path = { competitionId: 'gen' };
  const must = <T>(r: { data?: T; error?: unknown; response: Response }): T => {
    if (r.data === undefined) throw new Error(`${r.response.status}: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  must(await sdk.putCompetition({ client: admin, path, body: { name: 'Generated client', burnRatio: 0.1 } }));
  must(
    await sdk.putTasks({
      client: admin,
      path,
      body: {
        tasks: [
          { id: 'short-1', type: 'swebench_verified', complexity: 'short' },
          { id: 'long-1', type: 'swebench_verified', complexity: 'long' },
        ],
      },
    }),
  );
  const parquet = readFileSync(parquetFile);
  const imported = must(
    await sdk.importQnaTasks({ client: admin, path, query: { complexity: 'medium' }, body: new Blob([parquet]) }),
  );
  const { apiKey } = must(await sdk.createValidator({ client: admin, body: { name: 'generated' } }));
  const backup = must(await sdk.getBackup({ client: admin }));

  const validator = createClient({ baseUrl, auth: () => apiKey });
  const tokens = (n: number) => ({ input: n, cachedInput: 0, output: Math.round(n / 10) });
  const runs: RunResultInput[] = [];
  for (const taskId of ['short-1', 'long-1']) {
    for (let i = 0; i < 3; i++)
      runs.push({ runId: `${taskId}-b${i}`, taskId, kind: 'baseline', resolved: true, tokens: tokens(10_000) });
    for (const [hotkey, scale] of [
      ['alice', 5000],
      ['bob', 20_000],
    ] as const) {
      for (let i = 0; i < 3; i++)
        runs.push({
          runId: `${taskId}-${hotkey}${i}`,
          taskId,
          kind: 'miner',
          minerHotkey: hotkey,
          resolved: i < 2,
          tokens: tokens(scale),
        });
    }
  }
  const posted = must(await sdk.postRuns({ client: validator, path, body: { runs } }));
  const conflict = await sdk.postRuns({ client: validator, path, body: { runs: [{ ...runs[0]!, resolved: false }] } });

  const pub = createClient({ baseUrl });
  return {
    imported,
    posted,
    conflict: { status: conflict.response.status, error: conflict.error },
    leaderboard: must(await sdk.getLeaderboard({ client: pub, path })),
    miner: must(await sdk.getMiner({ client: pub, path: { ...path, hotkey: 'alice' } })),
    task: must(await sdk.getTask({ client: pub, path: { ...path, taskId: 'short-1' } })),
    weights: must(await sdk.getWeights({ client: pub, path })),
    metrics: must(await sdk.getMetrics({ client: pub })),
    backup: new Uint8Array(await backup.arrayBuffer()).subarray(0, 16),
  };
}
