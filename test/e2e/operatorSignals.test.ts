// What an on-call engineer sees of the conditions they must act on, from a real server process on
// SQLite: each refusal counted on /metrics by why (`scoring_requests_refused_total{reason}`) and
// named in the log, a 503 by its own message (a full temporary folder is not "database
// unavailable"), a 4xx at the door by the `refusal` field of its request line.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';
import { fill, tmpfsMounts } from '../support/tmpfs.js';
import { logLines, sample } from '../support/observe.js';

const ADMIN = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}` };
const tmp = tempDir('operator-signals');
const tmpfs = tmpfsMounts(tmp.dir);
let server: ServerProcess | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});
afterAll(() => {
  tmpfs.unmountAll();
  tmp.remove();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN) {
  const res = await fetch(`${server!.baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const runs = (prefix: string, n: number) => ({
  runs: Array.from({ length: n }, (_, i) => ({
    runId: `${prefix}-${i}-${'x'.repeat(100)}`,
    taskId: 't',
    kind: 'miner',
    minerHotkey: `m${i % 50}`,
    resolved: i % 2 === 0,
  })),
});

describe.runIf(TEST_ENGINE === 'sqlite' && process.getuid?.() === 0)('storage refusals, told apart', () => {
  it('a full temporary folder and a full database disk: each 503 counted and logged by its own name', async () => {
    const data = tmpfs.mount('data', '8m');
    const spool = tmpfs.mount('spool', '8m');
    server = await startServer({ dbPath: join(data, 'db.sqlite'), logLevel: 'info', env: { TMPDIR: spool } });
    expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
    expect(
      (await call('PUT', '/v1/competitions/c/tasks', { tasks: [{ id: 't', type: 'swebench_verified' }] })).status,
    ).toBe(200);

    fill(spool);
    expect((await call('GET', '/v1/admin/backup')).status).toBe(503);
    expect(await sample(server, 'scoring_requests_refused_total{reason="temporary-folder-full"}')).toBe(1);
    // The server's output comes through a pipe, in its own time: its lines are waited for.
    const logged = { timeout: 5_000, interval: 50 };
    await expect
      .poll(() => logLines(server!).find((l) => l.refusal === 'temporary-folder-full' && l.err)?.msg, logged)
      .toBe('temporary folder full');
    const spoolLine = logLines(server).find((l) => l.refusal === 'temporary-folder-full' && l.err);
    expect(spoolLine?.err?.message).toContain(spool);
    expect(logLines(server).some((l) => l.msg === 'database unavailable')).toBe(false);
    rmSync(join(spool, 'filler'));

    fill(data);
    let refused = 0;
    for (let i = 0; i < 20 && refused === 0; i++)
      if ((await call('POST', '/v1/competitions/c/runs', runs(`b${i}`, 500))).status === 503) refused++;
    expect(refused).toBe(1);
    expect(await sample(server, 'scoring_requests_refused_total{reason="storage-full"}')).toBe(1);
    await expect
      .poll(() => logLines(server!).find((l) => l.refusal === 'storage-full' && l.err)?.msg, logged)
      .toBe('database disk full');
    // The request line of each names the refusal too.
    await expect
      .poll(
        () =>
          logLines(server!)
            .filter((l) => l.msg === 'request completed' && l.res?.statusCode === 503)
            .map((l) => l.refusal),
        logged,
      )
      .toEqual(['temporary-folder-full', 'storage-full']);
    rmSync(join(data, 'filler'));
  }, 60_000);
});

describe.runIf(TEST_ENGINE === 'sqlite' && process.getuid?.() === 0)('periodic snapshots, watched', () => {
  it('a pass that fails (the disk full) is counted and logged; one that succeeds again stamps its time', async () => {
    const data = tmpfs.mount('snapshots', '8m');
    server = await startServer({
      dbPath: join(data, 'db.sqlite'),
      logLevel: 'info',
      env: { SCORING_SNAPSHOT_INTERVAL: '1s' },
    });
    expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
    expect(
      (await call('PUT', '/v1/competitions/c/tasks', { tasks: [{ id: 't', type: 'swebench_verified' }] })).status,
    ).toBe(200);
    const poll = { timeout: 10_000, interval: 250 };
    await expect.poll(() => sample(server!, 'scoring_snapshots_taken_total'), poll).toBe(1);
    const stamped = await sample(server, 'scoring_snapshot_pass_last_success_timestamp_seconds');
    expect(Math.abs(stamped - Date.now() / 1000)).toBeLessThan(5);

    expect((await call('POST', '/v1/competitions/c/runs', runs('a', 200))).status).toBe(200);
    fill(data);
    await expect.poll(() => sample(server!, 'scoring_snapshot_failures_total'), poll).toBeGreaterThan(0);
    await expect.poll(() => logLines(server!).find((l) => l.msg === 'periodic snapshot failed')?.level, poll).toBe(50);
    rmSync(join(data, 'filler'));
    await expect.poll(() => sample(server!, 'scoring_snapshots_taken_total'), poll).toBe(2);
    expect(await sample(server, 'scoring_snapshot_pass_last_success_timestamp_seconds')).toBeGreaterThan(stamped);
  }, 60_000);
});

describe.runIf(TEST_ENGINE === 'sqlite')('refusals at the door, counted by why', () => {
  it('rate limits and an outdated validator: each counted, each request line naming it', async () => {
    server = await startServer({
      dbPath: join(tmp.dir, 'door.db'),
      logLevel: 'info',
      env: { SCORING_RATE_LIMIT_ANONYMOUS: '3' },
    });
    expect((await call('PUT', '/v1/competitions/c', { name: 'c', minValidatorVersion: '2.0.0' })).status).toBe(201);
    expect(
      (await call('PUT', '/v1/competitions/c/tasks', { tasks: [{ id: 't', type: 'swebench_verified' }] })).status,
    ).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call('GET', '/v1/competitions/c/runs', undefined, {})).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(await sample(server, 'scoring_requests_refused_total{reason="rate-limit"}')).toBe(2);

    const v = (await call('POST', '/v1/validators', { name: 'old' })).json();
    const key = { authorization: `Bearer ${v.apiKey as string}` };
    expect((await call('POST', '/v1/validators/heartbeat', { version: '1.0.0' }, key)).status).toBe(200);
    expect((await call('POST', '/v1/competitions/c/runs', runs('old', 1), key)).status).toBe(426);
    expect(await sample(server, 'scoring_requests_refused_total{reason="validator-outdated"}')).toBe(1);
    const lines = logLines(server).filter((l) => l.msg === 'request completed');
    expect(lines.filter((l) => l.res?.statusCode === 429).map((l) => l.refusal)).toEqual(['rate-limit', 'rate-limit']);
    const outdated = lines.find((l) => l.res?.statusCode === 426);
    expect(outdated).toMatchObject({ refusal: 'validator-outdated', principal: `validator ${v.id as string}` });
  }, 60_000);
});

describe('the memory budget, watched', () => {
  it('a competition giving back its in-memory state is counted and logged, with what is held against the budget', async () => {
    server = await startServer({
      dbPath: join(tmp.dir, 'memory.db'),
      logLevel: 'info',
      env: { SCORING_MEMORY_BUDGET_MB: '0' },
    });
    for (const c of ['alpha', 'beta']) {
      expect((await call('PUT', `/v1/competitions/${c}`, { name: c })).status).toBe(201);
      expect(
        (await call('PUT', `/v1/competitions/${c}/tasks`, { tasks: [{ id: 't', type: 'swebench_verified' }] })).status,
      ).toBe(200);
      expect((await call('POST', `/v1/competitions/${c}/runs`, runs(c, 200))).status).toBe(200);
      expect((await call('GET', `/v1/competitions/${c}/coverage`)).status).toBe(200);
    }
    expect(await sample(server, 'scoring_competition_state_budget_bytes')).toBe(0);
    expect(await sample(server, 'scoring_competition_state_bytes')).toBeGreaterThan(0);
    // Only the one used last keeps its state: alpha gives its back within a sweep or two.
    await expect
      .poll(() => sample(server!, 'scoring_competition_releases_total'), { timeout: 10_000, interval: 250 })
      .toBe(1);
    const line = logLines(server).find(
      (l) => l.msg === 'competitions gave back their in-memory state (SCORING_MEMORY_BUDGET_MB)',
    );
    expect(line).toMatchObject({ level: 30, competitions: ['alpha'], budgetBytes: 0 });
    expect(line?.releasedBytes).toBeGreaterThan(0);
    expect(line?.heldBytes).toBeGreaterThan(0);
  }, 60_000);
});

describe('validators gone silent, watched', () => {
  it('the validators without a heartbeat for SCORING_VALIDATOR_SILENT_AFTER_MS are counted; revoked ones are not', async () => {
    server = await startServer({
      dbPath: join(tmp.dir, 'silent.db'),
      env: { SCORING_VALIDATOR_SILENT_AFTER_MS: '8000' },
    });
    const never = (await call('POST', '/v1/validators', { name: 'never' })).json();
    const alive = (await call('POST', '/v1/validators', { name: 'alive' })).json();
    const beat = { authorization: `Bearer ${alive.apiKey as string}` };
    expect((await call('POST', '/v1/validators/heartbeat', { version: '1.0.0' }, beat)).status).toBe(200);
    // Read every few seconds: within one read, two hold a key and the one that never sent a heartbeat is silent.
    const poll = { timeout: 7_000, interval: 250 };
    await expect.poll(() => sample(server!, 'scoring_validators_active'), poll).toBe(2);
    expect(await sample(server, 'scoring_validators_silent')).toBe(1);
    expect((await call('DELETE', `/v1/validators/${never.id as string}`)).status).toBe(200);
    await expect.poll(() => sample(server!, 'scoring_validators_active'), poll).toBe(1);
    // Then the other one's heartbeat ages past 8 s.
    await expect.poll(() => sample(server!, 'scoring_validators_silent'), { ...poll, timeout: 15_000 }).toBe(1);
  }, 60_000);
});

describe('imports, watched', () => {
  it('the import sessions open, against their cap', async () => {
    server = await startServer({ dbPath: join(tmp.dir, 'imports.db') });
    expect((await call('PUT', '/v1/competitions/c', { name: 'c' })).status).toBe(201);
    expect(await sample(server, 'scoring_import_sessions_max')).toBe(4);
    const opened = (await call('POST', '/v1/competitions/c/tasks/imports', { format: 'jsonl' })).json();
    expect(await sample(server, 'scoring_import_sessions_open')).toBe(1);
    expect((await call('DELETE', `/v1/competitions/c/tasks/imports/${opened.sessionId as string}`)).status).toBe(200);
    expect(await sample(server, 'scoring_import_sessions_open')).toBe(0);
  }, 60_000);
});
