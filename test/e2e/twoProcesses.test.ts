// Two server processes on one PostgreSQL database (issue 15): a write acknowledged by either is
// reflected by the very next read on the other, under concurrent writes through both, and a batch
// sent to both at once is stored once. On SQLite the server is one process per file, so this
// suite runs in the PostgreSQL projects only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const C = '/v1/competitions/two';
const TASKS = 6;

async function send(server: ServerProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    // Reads as a dashboard sends them, without a token: those are the ones answered ahead of the
    // router (src/http/fastReads.ts; a read with a token is checked by the router).
    headers: method === 'GET' ? {} : admin,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} on :${server.port}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Reads answered ahead of the router by a process (src/http/fastReads.ts). */
async function keptReads(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: admin })).text();
  return Number(/^scoring_kept_reads_total (\d+)$/m.exec(text)![1]);
}

/** A batch from miner `hotkey`: one run on each task. */
const batch = (hotkey: string) => ({
  runs: Array.from({ length: TASKS }, (_, i) => ({
    runId: `${hotkey}.t${i}`,
    taskId: `t${i}`,
    kind: 'miner',
    minerHotkey: hotkey,
    resolved: i % 2 === 0,
    tokens: { input: 100 + i, output: 10 },
  })),
});

describe.runIf(TEST_ENGINE === 'postgres')('two server processes on one PostgreSQL database', () => {
  let tmp: TempDir;
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    tmp = tempDir('two');
    const dbPath = `${tmp.dir}/shared.db`; // one PostgreSQL database stands in for this path
    [a, b] = await Promise.all([startServer({ dbPath }), startServer({ dbPath })]);
    await send(a, 'PUT', C, { name: 'Two processes' });
    const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i}`, type: 'swebench_verified' }));
    await send(b, 'PUT', `${C}/tasks`, { tasks });
    const baseline = Array.from({ length: TASKS }, (_, i) => ({
      runId: `base.t${i}`,
      taskId: `t${i}`,
      kind: 'baseline',
      resolved: true,
      tokens: { input: 200, output: 20 },
    }));
    await send(a, 'POST', `${C}/runs`, { runs: baseline });
  }, 90_000);
  afterAll(async () => {
    await stopAllServers();
    tmp?.remove();
  });

  it('every acknowledged write shows in the next read on the other process, under concurrency', async () => {
    const writers = 4;
    const perWriter = 8;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) {
          const hotkey = `m${w}x${i}`;
          const [writeTo, readFrom] = (w + i) % 2 === 0 ? [a, b] : [b, a];
          const stored = await send(writeTo, 'POST', `${C}/runs`, batch(hotkey));
          expect(stored.accepted).toBe(TASKS);
          // Right after the acknowledgement, on the other process: the cached score read and the stored counts.
          const board = (await send(readFrom, 'GET', `${C}/leaderboard?hotkeys=${hotkey}`)) as {
            miners: { hotkey: string }[];
          };
          expect(
            board.miners.map((m) => m.hotkey),
            `${hotkey} written to :${writeTo.port}`,
          ).toEqual([hotkey]);
          // The whole leaderboard, answered ahead of the router when kept (src/http/fastReads.ts): after the catch-up.
          const whole = (await send(readFrom, 'GET', `${C}/leaderboard`)) as { miners: { hotkey: string }[] };
          expect(
            whole.miners.some((m) => m.hotkey === hotkey),
            `${hotkey} written to :${writeTo.port}`,
          ).toBe(true);
          const miner = (await send(readFrom, 'GET', `${C}/miners/${hotkey}`)) as { tasks: unknown[] };
          expect(miner.tasks).toHaveLength(TASKS);
        }
      }),
    );
    const counts = async (s: ServerProcess) => ((await send(s, 'GET', C)) as { counts: { runs: number } }).counts;
    expect((await counts(a)).runs).toBe(TASKS * (1 + writers * perWriter));
    expect(await counts(b)).toEqual(await counts(a));
    // Both processes answer the same scores.
    const [la, lb] = await Promise.all([send(a, 'GET', `${C}/leaderboard`), send(b, 'GET', `${C}/leaderboard`)]);
    expect(lb).toEqual(la);
    expect((la as { total: number }).total).toBe(writers * perWriter);
    // Kept on both by now: some of the whole reads above were answered ahead of the router.
    for (const s of [a, b]) expect(await keptReads(s)).toBeGreaterThan(0);
  }, 120_000);

  it('the same batch sent to both at once is stored once: no run lost or counted twice', async () => {
    const before = ((await send(a, 'GET', C)) as { counts: { runs: number } }).counts.runs;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? a : b, 'POST', `${C}/runs`, batch('twice'))),
    );
    expect(results.reduce((s, r) => s + (r.accepted as number), 0)).toBe(TASKS);
    expect(results.reduce((s, r) => s + (r.duplicates as number), 0)).toBe(5 * TASKS);
    for (const s of [a, b]) {
      expect(((await send(s, 'GET', C)) as { counts: { runs: number } }).counts.runs).toBe(before + TASKS);
      const miner = (await send(s, 'GET', `${C}/miners/twice`)) as { tasks: { runs: number }[] };
      expect(miner.tasks.map((t) => t.runs)).toEqual(Array(TASKS).fill(1));
    }
  }, 60_000);

  it("an import session's request sent to the other process is a 404 that says where the session is", async () => {
    // A session's chunks are spooled on the disk of the process that opened it (compose.yaml pins a
    // competition's imports to one replica). Behind a proxy that does not, the other process used
    // to say the session was committed, cancelled or expired, while it was open and well.
    const opened = await send(a, 'POST', `${C}/tasks/imports`, { format: 'jsonl' });
    const res = await fetch(`${b.baseUrl}${C}/tasks/imports/${opened.sessionId as string}/chunks/0`, {
      method: 'PUT',
      headers: { authorization: admin.authorization, 'content-type': 'application/octet-stream' },
      body: '{}\n',
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toContain('opened on another server process');
    // Where it was opened, it is open still.
    const there = await fetch(`${a.baseUrl}${C}/tasks/imports/${opened.sessionId as string}`, { headers: admin });
    expect(await there.json()).toMatchObject({ state: 'open' });
  }, 60_000);

  it('a metagraph recorded on one process changes the next weights on chain read on the other', async () => {
    const owner = '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM';
    const other = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';
    const neurons = [{ uid: 0, hotkey: owner }];
    await send(a, 'PUT', `${C}/metagraph`, { netuid: 1, block: 1, neurons });
    expect(await send(b, 'GET', `${C}/weights/chain`)).toMatchObject({ block: 1, burnUid: 0 });
    // Warm on b now; a second version through a moves the burn to uid 1 on b's very next read.
    await send(a, 'PUT', `${C}/metagraph`, {
      netuid: 1,
      block: 2,
      neurons: [...neurons, { uid: 1, hotkey: other }],
      burnUid: 1,
    });
    expect(await send(b, 'GET', `${C}/weights/chain`)).toMatchObject({ block: 2, burnUid: 1, uids: [1] });
  }, 60_000);
});
