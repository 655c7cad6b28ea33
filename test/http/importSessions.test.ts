// Import sessions: chunks in order, commit all or nothing, cancel and expiry delete the upload,
// and an import without complexity keeps the stored values.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keypairFromSeed, signRequest } from '../../src/client/sign.js';
import { importSessionsService } from '../../src/services/importSessions.js';
import { writeGate } from '../../src/services/writeGate.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const JSONL = readFileSync(fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url)));
const base = '/v1/competitions/c/tasks/imports';
const scratch = mkdtempSync(join(tmpdir(), 'swe-scoring-sessions-test-'));
const savedTmp = process.env.TMPDIR;
let t: TestApp;
beforeEach(async () => {
  // Session files go to os.tmpdir(): a folder of this test's own, to see them come and go.
  process.env.TMPDIR = scratch;
  t = await testApp();
  await seedCompetition(t, 'c');
});
afterEach(async () => {
  await t.close();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const openSession = async (body: Record<string, unknown> = { format: 'jsonl' }) => {
  const res = await t.call({ method: 'POST', url: base, headers: admin, payload: body });
  expect(res.status).toBe(201);
  return res.body.sessionId as string;
};
const chunk = (sid: string, n: number | string, bytes: Buffer | string, type = 'application/octet-stream') =>
  t.call({
    method: 'PUT',
    url: `${base}/${sid}/chunks/${n}`,
    headers: { ...admin, 'content-type': type },
    payload: bytes,
  });
const thirds = (b: Buffer) => [b.subarray(0, 1_000_001), b.subarray(1_000_001, 2_000_003), b.subarray(2_000_003)];
const uploads = () => readdirSync(scratch).filter((n) => n.startsWith('swe-scoring-import-'));
const tasks = async () =>
  (await t.call({ url: '/v1/competitions/c/tasks' })).body.tasks as {
    id: string;
    complexity: string | null;
    stage: string;
  }[];

describe('import sessions', () => {
  it('take chunks in order (a resent last chunk is a no-op) and commit them all at once', async () => {
    const sid = await openSession({ format: 'jsonl', complexity: 'Long', stage: 'screener_2' });
    const [a, b, c] = thirds(JSONL);
    expect((await chunk(sid, 0, a!)).body).toMatchObject({
      receivedChunks: 1,
      receivedBytes: a!.length,
      state: 'open',
    });
    const skipped = await chunk(sid, 2, c!);
    expect(skipped.status).toBe(409);
    expect(skipped.body.detail).toContain('expects chunk 1 next');
    expect((await chunk(sid, 1, b!)).status).toBe(200);
    expect((await chunk(sid, 1, b!)).body).toMatchObject({ receivedChunks: 2 }); // its answer was lost: resent
    expect((await chunk(sid, 2, c!)).body).toMatchObject({ receivedChunks: 3, receivedBytes: JSONL.length });
    expect(await tasks()).toEqual([]); // nothing before the commit
    const done = await t.call({ method: 'POST', url: `${base}/${sid}/commit`, headers: admin });
    expect(done.body).toEqual({ sessionId: sid, imported: 124, updated: 0, unchanged: 0 });
    expect((await tasks()).every((x) => x.complexity === 'long' && x.stage === 'screener_2')).toBe(true);
    expect(uploads()).toEqual([]);
    expect((await t.call({ method: 'GET', url: `${base}/${sid}`, headers: admin })).status).toBe(404);
  });

  it('an import without complexity or stage keeps the stored ones', async () => {
    const first = await openSession({ format: 'jsonl', complexity: 'short', stage: 'screener_1' });
    await chunk(first, 0, JSONL);
    await t.call({ method: 'POST', url: `${base}/${first}/commit`, headers: admin });
    const again = await openSession();
    await chunk(again, 0, JSONL);
    const res = await t.call({ method: 'POST', url: `${base}/${again}/commit`, headers: admin });
    expect(res.body).toMatchObject({ imported: 0, updated: 0, unchanged: 124 });
    expect((await tasks()).every((x) => x.complexity === 'short' && x.stage === 'screener_1')).toBe(true);
  });

  it('a bad row rejects the whole file, names the line, stores nothing and closes the session', async () => {
    const lines = JSONL.toString('utf8').trimEnd().split('\n');
    lines[99] = JSON.stringify({ ...JSON.parse(lines[99]!), repository_base_commit: 'xyz' });
    const sid = await openSession();
    await chunk(sid, 0, Buffer.from(lines.join('\n')));
    const res = await t.call({ method: 'POST', url: `${base}/${sid}/commit`, headers: admin });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nothing stored: row 100\/repository_base_commit/);
    expect(await tasks()).toEqual([]);
    expect(uploads()).toEqual([]);
  });

  it('cancel deletes the upload; a later commit is a 404 that says why', async () => {
    const sid = await openSession();
    await chunk(sid, 0, JSONL.subarray(0, 1000));
    expect(uploads()).toHaveLength(1);
    expect((await t.call({ method: 'DELETE', url: `${base}/${sid}`, headers: admin })).body).toMatchObject({
      state: 'cancelled',
    });
    expect(uploads()).toEqual([]);
    const late = await t.call({ method: 'POST', url: `${base}/${sid}/commit`, headers: admin });
    expect(late.status).toBe(404);
    expect(late.body.detail).toMatch(/committed, cancelled or expired/);
  });

  it('cancel while the commit is parsing: the commit stores nothing and says so', async () => {
    const sid = await openSession();
    await chunk(sid, 0, JSONL);
    const commit = t.call({ method: 'POST', url: `${base}/${sid}/commit`, headers: admin });
    while ((await t.call({ method: 'GET', url: `${base}/${sid}`, headers: admin })).body.state !== 'committing')
      await new Promise((r) => setImmediate(r));
    expect((await t.call({ method: 'DELETE', url: `${base}/${sid}`, headers: admin })).body.state).toBe('cancelled');
    const res = await commit;
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('cancelled while it was being parsed; nothing stored');
    expect(await tasks()).toEqual([]);
    expect(uploads()).toEqual([]);
  });

  it('refuses wrong chunk types, bad chunk numbers, unknown competitions, non-admins, and too many open sessions', async () => {
    const sid = await openSession();
    const typed = await chunk(sid, 0, '{}', 'application/x-ndjson');
    expect(typed.status).toBe(415);
    expect(typed.body.detail).toContain('application/octet-stream');
    // JSON is no chunk either (it once went through as an empty one).
    const json = await chunk(sid, 0, '{"a":1}', 'application/json');
    expect(json.status).toBe(415);
    expect(json.body.detail).toContain('application/octet-stream');
    expect((await t.call({ method: 'GET', url: `${base}/${sid}`, headers: admin })).body).toMatchObject({
      receivedChunks: 0,
      receivedBytes: 0,
    });
    expect((await chunk(sid, '01', JSONL)).status).toBe(400);
    expect(
      (
        await t.call({
          method: 'POST',
          url: '/v1/competitions/nope/tasks/imports',
          headers: admin,
          payload: { format: 'jsonl' },
        })
      ).status,
    ).toBe(404);
    expect((await t.call({ method: 'POST', url: base, payload: { format: 'jsonl' } })).status).toBe(401);
    for (let i = 0; i < 3; i++) await openSession();
    const full = await t.call({ method: 'POST', url: base, headers: admin, payload: { format: 'jsonl' } });
    expect(full.status).toBe(409);
    expect(full.body.detail).toContain('at most 4; c: 4');
    expect(full.body.detail).toContain('GET …/tasks/imports lists');
  });

  it("lists a competition's open sessions, so one a dead client left can be found and cancelled", async () => {
    const first = await openSession();
    const second = await openSession({ format: 'parquet' });
    expect((await chunk(first, 0, JSONL.subarray(0, 1000))).status).toBe(200);
    const listed = await t.call({ method: 'GET', url: base, headers: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toMatchObject([
      { sessionId: first, competitionId: 'c', format: 'jsonl', state: 'open', receivedChunks: 1, receivedBytes: 1000 },
      { sessionId: second, format: 'parquet', receivedChunks: 0 },
    ]);
    expect((await t.call({ method: 'DELETE', url: `${base}/${first}`, headers: admin })).status).toBeLessThan(300);
    const after = await t.call({ method: 'GET', url: base, headers: admin });
    expect(after.body.sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual([second]);
    expect((await t.call({ method: 'GET', url: base })).status).toBe(401);
    // A competition that does not exist has no sessions to list: a 404, as every route under it.
    const none = await t.call({ method: 'GET', url: '/v1/competitions/never/tasks/imports', headers: admin });
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain('competition never does not exist');
  });
});

it('a session idle past the limit expires and its upload is deleted', async () => {
  let clock = 0;
  const service = importSessionsService(
    t.store,
    writeGate(),
    { idleMs: 1000, maxOpen: 1, maxBytes: 1 << 20 },
    () => clock,
  );
  const first = await service.open('c', 'jsonl', {});
  await service.append('c', first.sessionId, 0, [JSONL.subarray(0, 10)]);
  clock = 900;
  expect(service.get('c', first.sessionId).receivedBytes).toBe(10); // a request renews it
  clock = 1800; // 900 ms idle: alive, and the only slot is taken
  await expect(service.open('c', 'jsonl', {})).rejects.toThrow(/at most 1/);
  clock = 2000; // 1,100 ms idle: swept when the next session opens
  const second = await service.open('c', 'jsonl', {});
  expect(() => service.get('c', first.sessionId)).toThrow(/expired/);
  expect(uploads()).toHaveLength(1);
  await expect(
    service.append('c', second.sessionId, 0, [Buffer.alloc(1 << 19), Buffer.alloc(1 << 20)]),
  ).rejects.toThrow(/would exceed 1048576 bytes/);
  // Its first piece had been written: the file is back to what it held before the chunk.
  expect(statSync(join(scratch, uploads()[0]!, 'upload.jsonl')).size).toBe(0);
  service.close();
  expect(uploads()).toEqual([]);
});

it('a chunk that breaks off part way leaves the file as it was, and the same chunk can be sent again', async () => {
  const service = importSessionsService(t.store, writeGate());
  const { sessionId } = await service.open('c', 'jsonl', {});
  await service.append('c', sessionId, 0, [JSONL.subarray(0, 100)]);
  async function* brokenOff() {
    yield JSONL.subarray(100, 200);
    throw new Error('aborted');
  }
  await expect(service.append('c', sessionId, 1, brokenOff())).rejects.toThrow('aborted');
  const file = join(scratch, uploads()[0]!, 'upload.jsonl');
  expect(statSync(file).size).toBe(100);
  expect(service.get('c', sessionId)).toMatchObject({ receivedChunks: 1, receivedBytes: 100 });
  await service.append('c', sessionId, 1, [JSONL.subarray(100, 150), JSONL.subarray(150, 200)]);
  expect(readFileSync(file).equals(JSONL.subarray(0, 200))).toBe(true);
  // The last chunk resent as it was (in other pieces) is a no-op; a different one is a 409 that says
  // the chunk came already with other content (not that it is out of order).
  expect(await service.append('c', sessionId, 1, [JSONL.subarray(100, 200)])).toMatchObject({ receivedBytes: 200 });
  const other = service.append('c', sessionId, 1, [JSONL.subarray(100, 199)]);
  await expect(other).rejects.toThrow(/chunk 1 was received already with other content/);
  await expect(other).rejects.toThrow(/expects chunk 2 next/);
  await expect(other).rejects.not.toThrow(/out of order/);
  expect(statSync(file).size).toBe(200);
  service.close();
});

it('a streamed chunk with no length that runs over 32 MiB is a 413, and the session keeps what it had', async () => {
  const sid = await openSession();
  expect((await chunk(sid, 0, JSONL.subarray(0, 1000))).status).toBe(200);
  const piece = Buffer.alloc(1 << 20, 0x20);
  // Chunked transfer: no Content-Length for the server to refuse the body by before reading it.
  const res = await t.app.inject({
    method: 'PUT',
    url: `${base}/${sid}/chunks/1`,
    headers: { ...admin, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    payload: Readable.from(
      (function* () {
        for (let i = 0; i < 33; i++) yield piece;
      })(),
    ),
  });
  expect(res.statusCode).toBe(413);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.json().detail).toContain('the limit is 33554432 bytes');
  const state = await t.call({ method: 'GET', url: `${base}/${sid}`, headers: admin });
  expect(state.body).toMatchObject({ receivedChunks: 1, receivedBytes: 1000 });
  expect(statSync(join(scratch, uploads()[0]!, 'upload.jsonl')).size).toBe(1000);
});

it("a validator's signed chunk is checked over its bytes and refused as not the admin's; a forged one is a 401", async () => {
  const sid = await openSession();
  const key = keypairFromSeed(new Uint8Array(32).fill(9));
  const made = await t.call({
    method: 'POST',
    url: '/v1/validators',
    headers: admin,
    payload: { name: 'v', hotkey: key.address },
  });
  expect(made.status).toBe(201);
  const bytes = JSONL.subarray(0, 500);
  const put = (headers: Record<string, string | string[]>) =>
    t.call({
      method: 'PUT',
      url: `${base}/${sid}/chunks/0`,
      headers: { ...headers, 'content-type': 'application/octet-stream' },
      payload: bytes,
    });
  // Signed over these exact bytes: the signer is known, and a validator may not import.
  expect((await put(signRequest({ key, body: bytes, signedFor: t.serverHotkey }))).status).toBe(403);
  // Signed over other bytes: the signature does not verify.
  const forged = await put(signRequest({ key, body: JSONL.subarray(0, 499), signedFor: t.serverHotkey }));
  expect(forged.status).toBe(401);
  expect(forged.body.type).toMatch(/signature-invalid$/);
  const state = await t.call({ method: 'GET', url: `${base}/${sid}`, headers: admin });
  expect(state.body).toMatchObject({ receivedChunks: 0, receivedBytes: 0 });
});
