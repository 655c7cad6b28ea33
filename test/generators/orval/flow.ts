// The walk-through with the client orval generates (fetch, ./orval.config.mjs) into ./client at
// test time: type-checked with tsc, then run against a live server.
import * as api from './client/api.js';
import type { RunResultInput } from './client/api.js';
import { server } from './server.js';
import { sampleRuns, TASKS, type FlowResult } from '../sample.js';

// @ts-expect-error a miner run without minerHotkey
// prettier-ignore
export const noHotkey: RunResultInput = { runId: 'x', taskId: 't', kind: 'miner', resolved: true };

/** The body of a 2xx answer; anything else throws with the problem it carried. */
function ok<R extends { status: number; data: unknown }>(r: R): Extract<R, { status: 200 | 201 }>['data'] {
  if (r.status !== 200 && r.status !== 201) throw new Error(`${r.status}: ${JSON.stringify(r.data)}`);
  return r.data;
}

export async function flow(baseUrl: string, adminToken: string): Promise<FlowResult> {
  server.baseUrl = baseUrl;
  const competitionId = 'gen-orval';
  const admin = { headers: { authorization: `Bearer ${adminToken}` } };
  ok(await api.putCompetition(competitionId, { name: 'orval', burnRatio: 0.1 }, admin));
  ok(await api.putTasks(competitionId, { tasks: TASKS }, admin));
  const { apiKey } = ok(await api.createValidator({ name: 'orval' }, admin));
  const validator = { headers: { authorization: `Bearer ${apiKey}` } };
  const runs = sampleRuns();
  const posted = ok(await api.postRuns(competitionId, { runs }, validator));
  const conflict = await api.postRuns(competitionId, { runs: [{ ...runs[0]!, resolved: false }] }, validator);
  const backup = ok(await api.getBackup(admin));
  // An operation with an NDJSON answer comes back as the Response (`stream`) whatever the format
  // asked: the CSV that the type says is in `data` is read from `stream` (docs/clients.md).
  const csv = await api.exportTasks(competitionId, { format: 'csv' }, admin);
  const exported = 'stream' in csv ? await csv.stream.text() : undefined;
  return {
    posted,
    conflict: conflict.status,
    leaderboard: ok(await api.getLeaderboard(competitionId)),
    miner: ok(await api.getMiner(competitionId, 'alice')),
    task: ok(await api.getTask(competitionId, 'short-1')),
    weights: ok(await api.getWeights(competitionId)),
    metrics: ok(await api.getMetrics()),
    backup: new Uint8Array(await backup.arrayBuffer()).subarray(0, 16),
    exported,
    pinned: { csvInData: 'data' in csv },
  };
}
