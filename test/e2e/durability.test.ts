// Durability: every batch acknowledged with 200 survives a SIGKILL right after the last ack.
// The expected scores come from an in-memory app fed the same batches.
import { afterAll, describe, expect, it } from 'vitest';
import { admin as adminHeaders, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { createScoringClient, type components } from '../../src/client/index.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';
import { mulberry32 } from '../support/prng.js';

type RunIn = components['schemas']['RunResultInput'];
const C = 'durable';
const path = { competitionId: C };
const TASKS = Array.from({ length: 12 }, (_, i) => ({
  id: `task-${i}`,
  type: 'swebench_verified' as const,
  complexity: (['short', 'medium', 'long'] as const)[i % 3],
  stage: i % 4 === 3 ? ('screener_2' as const) : ('evaluation' as const),
}));
const MINERS = ['m-a', 'm-b', 'm-c', 'm-d'];

/** Batch b: 300 runs, baseline and miner, spread over the tasks. */
function batch(b: number): RunIn[] {
  const rand = mulberry32(1000 + b);
  return Array.from({ length: 300 }, (_, i) => {
    const task = TASKS[Math.floor(rand() * TASKS.length)]!;
    const who = Math.floor(rand() * (MINERS.length + 1));
    const tokens = {
      input: 50 + Math.floor(rand() * 5000),
      cachedInput: Math.floor(rand() * 20_000),
      output: 1 + Math.floor(rand() * 800),
    };
    return {
      runId: `b${b}-r${i}`,
      taskId: task.id,
      resolved: rand() < 0.6,
      attemptNo: i % 5,
      tokens,
      ...(who === MINERS.length
        ? { kind: 'baseline' as const }
        : { kind: 'miner' as const, minerHotkey: MINERS[who]! }),
    };
  });
}
const BATCHES = [0, 1, 2, 3, 4, 5].map(batch);
const ALL = BATCHES.flat();

let tmp: TempDir | undefined;
let server: ServerProcess | undefined;
let reference: TestApp | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await reference?.close();
  tmp?.remove();
});

/** Fetches in parallel, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

// Two server starts (tsx) and ~2,000 runs: more than the default 30 s on a loaded machine.
describe('durability', { timeout: 120_000 }, () => {
  it('keeps every acknowledged run and the same scores across a SIGKILL', async () => {
    tmp = tempDir('e2e');
    const dbPath = `${tmp.dir}/nested/scoring.db`;
    server = await startServer({ dbPath });
    const adminC = createScoringClient(server.baseUrl, SERVER_ADMIN_TOKEN);
    expect(
      (await adminC.PUT('/v1/competitions/{competitionId}', { params: { path }, body: { name: 'Durable' } })).response
        .status,
    ).toBe(201);
    expect(
      (await adminC.PUT('/v1/competitions/{competitionId}/tasks', { params: { path }, body: { tasks: TASKS } }))
        .response.status,
    ).toBe(200);
    const key = (await adminC.POST('/v1/validators', { body: { name: 'v' } })).data!.apiKey;
    const v = createScoringClient(server.baseUrl, key);

    // The reference: the same writes on an in-memory app.
    reference = await testApp();
    const { validatorKey } = await seedCompetition(reference, C, { name: 'Durable' });
    expect(
      (
        await reference.call({
          method: 'PUT',
          url: `/v1/competitions/${C}/tasks`,
          headers: adminHeaders,
          payload: { tasks: TASKS },
        })
      ).status,
    ).toBe(200);
    for (const runs of BATCHES) {
      const r = await reference.call({
        method: 'POST',
        url: `/v1/competitions/${C}/runs`,
        headers: { authorization: `Bearer ${validatorKey}` },
        payload: { runs },
      });
      expect(r.body).toEqual({ accepted: runs.length, duplicates: 0 });
    }

    for (const runs of BATCHES) {
      const res = await v.POST('/v1/competitions/{competitionId}/runs', { params: { path }, body: { runs } });
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual({ accepted: runs.length, duplicates: 0 });
    }
    // No grace: the process dies right after the last acknowledgement.
    const killed = await server.stop('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');

    server = await startServer({ dbPath });
    const pub = createScoringClient(server.baseUrl);
    const c = (await pub.GET('/v1/competitions/{competitionId}', { params: { path } })).data!;
    expect(c.counts).toEqual({ tasks: TASKS.length, miners: MINERS.length, runs: ALL.length });

    // Every run of the last batch (the one most at risk) and every 5th of the others, field by field;
    // the counts above and the scores below cover the rest.
    const sample = ALL.filter((r, i) => i >= ALL.length - 300 || i % 5 === 0);
    const stored = await inParallel(
      sample,
      16,
      async (run) =>
        (
          await pub.GET('/v1/competitions/{competitionId}/runs/{runId}', {
            params: { path: { ...path, runId: run.runId } },
          })
        ).data,
    );
    stored.forEach((got, i) => {
      const sent = sample[i]!;
      expect(got, sent.runId).toMatchObject({
        runId: sent.runId,
        taskId: sent.taskId,
        kind: sent.kind,
        resolved: sent.resolved,
        minerHotkey: sent.kind === 'miner' ? sent.minerHotkey : null,
        attemptNo: sent.attemptNo,
        tokens: sent.tokens,
      });
    });

    // The same scores as the reference that never crashed.
    for (const route of ['leaderboard', 'weights'] as const) {
      const expected = (await reference.call({ method: 'GET', url: `/v1/competitions/${C}/${route}` })).body;
      const got = await (await fetch(`${server.baseUrl}/v1/competitions/${C}/${route}`)).json();
      expect(got).toEqual(expected);
    }
    const lb = (await pub.GET('/v1/competitions/{competitionId}/leaderboard', { params: { path } })).data!;
    expect(lb.miners.map((m) => m.hotkey).sort()).toEqual(MINERS);
    expect(lb.miners.every((m) => m.rank !== null)).toBe(true);
    const taskView = async (app: 'ref' | 'srv') =>
      app === 'ref'
        ? (await reference!.call({ method: 'GET', url: `/v1/competitions/${C}/tasks/task-0` })).body
        : await (await fetch(`${server!.baseUrl}/v1/competitions/${C}/tasks/task-0`)).json();
    expect(await taskView('srv')).toEqual(await taskView('ref'));
  });
});
