// Scores saved at shutdown, through real server processes: after SIGTERM the next start restores
// them and computes nothing; a write and then a SIGKILL leave no current saved scores behind (on
// SQLite the write's transaction deleted them, on PostgreSQL it bumped the competition's version
// past the one saved), so the start after the crash computes, and shows the write.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createScoringClient, type components } from '../../src/client/index.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

type RunIn = components['schemas']['RunResultInput'];
const C = 'saved';
const path = { competitionId: C };
const tmp = tempDir('saved-scores');
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop('SIGKILL');
  tmp.remove();
});

const runs = (prefix: string, hotkeys: string[]): RunIn[] =>
  hotkeys.flatMap((hotkey, h) =>
    Array.from({ length: 6 }, (_, i) => ({
      runId: `${prefix}-${hotkey}-${i}`,
      taskId: `t${i % 3}`,
      kind: 'miner' as const,
      minerHotkey: hotkey,
      resolved: (i + h) % 2 === 0,
      tokens: { input: 1000 + i, output: 100 + h },
    })),
  );

/** The summary line of the start's pass over every competition: how many it computed and restored. */
async function startSummary(s: ServerProcess): Promise<{ computed: number; restored: number }> {
  // Logged once the pass is done, which may be after the server is ready.
  for (let waited = 0; waited < 10_000; waited += 20) {
    const line = s
      .output()
      .split('\n')
      .find((l) => l.includes('"restored"'));
    if (line) {
      const { computed, restored } = JSON.parse(line) as { computed: number; restored: number };
      return { computed, restored };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no start summary in the server's output:\n${s.output()}`);
}

describe('scores saved at shutdown, across real restarts', () => {
  it('SIGTERM saves them and the next start restores them; a crash after a write computes', async () => {
    const dbPath = join(tmp.dir, 'saved.db');
    server = await startServer({ dbPath, logLevel: 'info' });
    let admin = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
    await admin.PUT('/v1/competitions/{competitionId}', { params: { path }, body: { name: 'Saved' } });
    const tasks = ['t0', 't1', 't2'].map((id) => ({ id, type: 'swebench_verified' as const }));
    await admin.PUT('/v1/competitions/{competitionId}/tasks', { params: { path }, body: { tasks } });
    const key = (await admin.POST('/v1/validators', { body: { name: 'v' } })).data!.apiKey!;
    const baseline: RunIn[] = ['t0', 't1', 't2'].map((taskId, i) => ({
      runId: `b${i}`,
      taskId,
      kind: 'baseline',
      resolved: i !== 1,
      tokens: { input: 1500, output: 150 },
    }));
    let validator = createScoringClient(server.baseUrl, key);
    const sent = await validator.POST('/v1/competitions/{competitionId}/runs', {
      params: { path },
      body: { runs: [...baseline, ...runs('a', ['alice', 'bob', 'carol'])] },
    });
    expect(sent.response.status).toBe(200);
    const before = (await admin.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })).data;

    expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('scores saved for the next start');

    server = await startServer({ dbPath, logLevel: 'info' });
    expect(await startSummary(server)).toEqual({ computed: 0, restored: 1 });
    admin = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
    expect((await admin.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })).data).toEqual(
      before,
    );

    // A write, then a crash: the saved row no longer stands for the data.
    validator = createScoringClient(server.baseUrl, key);
    const more = await validator.POST('/v1/competitions/{competitionId}/runs', {
      params: { path },
      body: { runs: runs('b', ['dave']) },
    });
    expect(more.response.status).toBe(200);
    const after = (await admin.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })).data;
    expect(after).not.toEqual(before);
    expect((await server.stop('SIGKILL')).signal).toBe('SIGKILL');

    server = await startServer({ dbPath, logLevel: 'info' });
    expect(await startSummary(server)).toEqual({ computed: 1, restored: 0 });
    admin = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
    const board = (await admin.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })).data;
    expect(board).toEqual(after);
    expect(board!.miners.map((m) => m.hotkey)).toContain('dave');
  });
});
