// The walk-through with the client swagger-typescript-api generates (fetch, --enum-style union)
// into ./client at test time: type-checked with tsc, then run against a live server.
import { Api, type RunResultInput } from './client/api.js';
import { sampleRuns, TASKS, type FlowResult } from '../sample.js';

// @ts-expect-error a miner run without minerHotkey
// prettier-ignore
export const noHotkey: RunResultInput = { runId: 'x', taskId: 't', kind: 'miner', resolved: true };

/** A client sending `token` (when given) on every operation whose security names one. */
const client = (baseUrl: string, token?: string) =>
  new Api<string>({
    baseUrl,
    securityWorker: (t) => (t ? { headers: { authorization: `Bearer ${t}` } } : {}),
    ...(token === undefined ? {} : { securityData: token }),
  });

export async function flow(baseUrl: string, adminToken: string): Promise<FlowResult> {
  const competitionId = 'gen-sta';
  const admin = client(baseUrl, adminToken);
  await admin.v1.putCompetition(competitionId, { name: 'swagger-typescript-api', burnRatio: 0.1 });
  await admin.v1.putTasks(competitionId, { tasks: TASKS });
  const { apiKey } = (await admin.v1.createValidator({ name: 'swagger-typescript-api' })).data;
  // The client reads a body only as JSON unless told: a text or binary one needs its `format`.
  const backup = (await admin.v1.getBackup({ format: 'blob' })).data;

  const validator = client(baseUrl, apiKey);
  const runs = sampleRuns();
  const posted = (await validator.v1.postRuns(competitionId, { runs })).data;
  // A refused request throws the Response, with the problem as `error`.
  const conflict = await validator.v1.postRuns(competitionId, { runs: [{ ...runs[0]!, resolved: false }] }).then(
    (r) => r.status,
    (e: Response) => e.status,
  );

  const pub = client(baseUrl);
  return {
    defaultBaseUrl: new Api().baseUrl,
    posted,
    conflict,
    leaderboard: (await pub.v1.getLeaderboard(competitionId)).data,
    miner: (await pub.v1.getMiner(competitionId, 'alice')).data,
    task: (await pub.v1.getTask(competitionId, 'short-1')).data,
    weights: (await pub.v1.getWeights(competitionId)).data,
    metrics: (await pub.metrics.getMetrics({ format: 'text' })).data,
    backup: new Uint8Array(await backup.arrayBuffer()).subarray(0, 16),
    pinned: { metricsWithoutFormat: (await pub.metrics.getMetrics()).data },
  };
}
