// The walk-through with the client openapi-typescript-codegen generates (fetch, --useUnionTypes)
// into ./client at test time: type-checked with tsc, then run against a live server.
import {
  ApiError,
  CompetitionsService,
  MinersService,
  OpenAPI,
  OperationsService,
  RunsService,
  ScoresService,
  TasksService,
  ValidatorsService,
  type RunResultInput,
} from './client/index.js';
import { sampleRuns, TASKS, type FlowResult } from '../sample.js';

// @ts-expect-error a miner run without minerHotkey
// prettier-ignore
export const noHotkey: RunResultInput = { runId: 'x', taskId: 't', kind: 'miner', resolved: true };

export async function flow(baseUrl: string, adminToken: string): Promise<FlowResult> {
  // The client's settings are one global object: BASE and the token of the calls that follow.
  const defaultBaseUrl = OpenAPI.BASE;
  OpenAPI.BASE = baseUrl;
  OpenAPI.TOKEN = adminToken;
  const competitionId = 'gen-codegen';
  await CompetitionsService.putCompetition(competitionId, { name: 'openapi-typescript-codegen', burnRatio: 0.1 });
  await TasksService.putTasks(competitionId, { tasks: TASKS });
  const { apiKey } = await ValidatorsService.createValidator({ name: 'openapi-typescript-codegen' });
  // The client reads every body that is not JSON as text, a binary one too: the backup is fetched
  // without it (docs/clients.md).
  const backup = await fetch(`${baseUrl}/v1/admin/backup`, { headers: { authorization: `Bearer ${adminToken}` } });
  const backupFromClient = typeof (await OperationsService.getBackup());

  OpenAPI.TOKEN = apiKey;
  const runs = sampleRuns();
  const posted = await RunsService.postRuns(competitionId, { runs });
  const conflict = await RunsService.postRuns(competitionId, { runs: [{ ...runs[0]!, resolved: false }] }).then(
    () => 200,
    (e: unknown) => (e instanceof ApiError ? e.status : 0),
  );

  OpenAPI.TOKEN = undefined;
  return {
    defaultBaseUrl,
    posted,
    conflict,
    leaderboard: await ScoresService.getLeaderboard(competitionId),
    miner: await MinersService.getMiner(competitionId, 'alice'),
    task: await TasksService.getTask(competitionId, 'short-1'),
    weights: await ScoresService.getWeights(competitionId),
    metrics: await OperationsService.getMetrics(),
    backup: new Uint8Array(await backup.arrayBuffer()).subarray(0, 16),
    pinned: { backupFromClient },
  };
}
