// Epistula v2 over HTTP (API.md 1.1): validators created with a hotkey sign their requests; every
// refusal is a 401 problem naming its reason and header, and stores nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { keypairFromSeed, signRequest, type EpistulaKeypair, type SignRequestInput } from '../../src/client/sign.js';
import { connect } from 'node:net';
import { join } from 'node:path';
import { decodeSs58, encodeSs58 } from '../../src/signatures/ss58.js';
import { tempDir } from '../support/tempDir.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { ALICE, BOB, SERVER } from '../signatures/fixtures.js';
import type { Json } from '../support/json.js';

let t: TestApp;
afterEach(async () => t?.close());

const TASKS = { tasks: [{ id: 't1', type: 'swebench_verified' }] };
const body = (runId: string) =>
  JSON.stringify({ runs: [{ runId, taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }] });

async function setup(options: Parameters<typeof testApp>[0] = {}) {
  t = await testApp(options);
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'C' } });
  await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: TASKS });
}

const register = async (key: EpistulaKeypair, name = 'signer') =>
  t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name, hotkey: key.address } });

/** Signs for this server's address unless told otherwise. */
const sign = (input: Omit<SignRequestInput, 'signedFor'> & { signedFor?: string }) =>
  signRequest({ signedFor: t.serverHotkey, ...input });

/** Posts `payload` (the exact bytes) with the given headers. */
const postRaw = (payload: string, headers: Record<string, string | string[]>) =>
  t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: { 'content-type': 'application/json', ...headers },
    payload,
  });

const signedPost = (
  key: EpistulaKeypair,
  payload: string,
  opts: { uuid?: string; now?: number; signedFor?: string } = {},
) => postRaw(payload, sign({ key, body: payload, ...opts }));

const runCount = () => t.count('runs');

/** A 401 problem of this reason, naming this header, with the database unchanged. */
async function expectRefused(
  send: () => Promise<{ status: number; body: Json; headers: Record<string, unknown> }>,
  reason: string,
  header: string,
) {
  const before = await t.dump();
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toMatch(new RegExp(`:${reason}$`));
  const named = `${res.body.detail} ${JSON.stringify(res.body.errors ?? [])}`.toLowerCase();
  expect(named).toContain(header.toLowerCase());
  expect(await t.dump()).toBe(before);
  return res.body;
}

describe('signed validators', () => {
  it('creates a signing validator without an API key, and attributes its signed runs to it', async () => {
    await setup();
    const v = await register(ALICE);
    expect(v.status).toBe(201);
    expect(v.body.hotkey).toBe(ALICE.address);
    expect(v.body).not.toHaveProperty('apiKey');
    const payload = body('r1');
    const res = await signedPost(ALICE, payload);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ accepted: 1, duplicates: 0 });
    const list = await t.call({ method: 'GET', url: `/v1/competitions/c/runs?validator=${v.body.id}` });
    expect(list.body.runs.map((r: { runId: string; validatorId: string }) => [r.runId, r.validatorId])).toEqual([
      ['r1', v.body.id],
    ]);
    // A body-less signed request (a deletion) is verified too, and may delete the signer's own run.
    const del = await t.call({
      method: 'DELETE',
      url: '/v1/competitions/c/runs/r1',
      headers: sign({ key: ALICE }),
    });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(await runCount()).toBe(0);
  });

  it('signs through the generated client against a listening server', async () => {
    await setup();
    await register(ALICE);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { createSignedScoringClient } = await import('../../src/client/sign.js');
    const client = createSignedScoringClient(address, ALICE.secretKey);
    const res = await client.POST('/v1/competitions/{competitionId}/runs', {
      params: { path: { competitionId: 'c' } },
      body: { runs: [{ runId: 'via-client', taskId: 't1', kind: 'baseline', resolved: false }] },
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ accepted: 1, duplicates: 0 });
    expect(await runCount()).toBe(1);
  });

  it('keeps bearer validators working beside signing ones', async () => {
    await setup();
    await register(ALICE);
    const bearer = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'bearer' } });
    expect(bearer.body.apiKey).toMatch(/^swv_/);
    expect(bearer.body.hotkey).toBeNull();
    const res = await postRaw(body('b1'), { authorization: `Bearer ${bearer.body.apiKey}` });
    expect(res.status).toBe(200);
    const run = await t.call({ method: 'GET', url: '/v1/competitions/c/runs/b1' });
    expect(run.body.validatorId).toBe(bearer.body.id);
  });

  it('refuses a bad hotkey with a 400 naming body/hotkey, and a hotkey registered twice with a 409', async () => {
    await setup();
    for (const hotkey of [
      'not-an-address',
      ALICE.address.slice(0, -1) + (ALICE.address.endsWith('a') ? 'b' : 'a'),
      '',
    ]) {
      const res = await t.call({
        method: 'POST',
        url: '/v1/validators',
        headers: admin,
        payload: { name: 'x', hotkey },
      });
      expect(res.status, hotkey).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain('body/hotkey');
    }
    expect((await register(ALICE)).status).toBe(201);
    const again = await register(ALICE, 'again');
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body.errors)).toContain('body/hotkey');
    // The same key under another ss58 prefix (Polkadot's 0) is the same validator.
    const polkadot = await t.call({
      method: 'POST',
      url: '/v1/validators',
      headers: admin,
      payload: { name: 'p', hotkey: encodeSs58(ALICE.publicKey, 0) },
    });
    expect(polkadot.status).toBe(409);
  });
});

describe('refusals over HTTP', () => {
  it('signature-missing: a header left out', async () => {
    await setup();
    await register(ALICE);
    const payload = body('r1');
    const { 'Epistula-Uuid': _u, ...headers } = sign({ key: ALICE, body: payload });
    await expectRefused(() => postRaw(payload, headers), 'signature-missing', 'Epistula-Uuid');
  });

  it('signature-malformed: version 1, short signature, bad ss58, timestamp as text, and Authorization beside the signature', async () => {
    await setup();
    await register(ALICE);
    const payload = body('r1');
    const good = () => sign({ key: ALICE, body: payload });
    const cases: [string, Record<string, string>][] = [
      ['Epistula-Version', { ...good(), 'Epistula-Version': '1' }],
      [
        'Epistula-Request-Signature',
        { ...good(), 'Epistula-Request-Signature': good()['Epistula-Request-Signature']!.slice(0, 100) },
      ],
      ['Epistula-Request-Signature', { ...good(), 'Epistula-Request-Signature': '0x' + 'zz'.repeat(64) }],
      [
        'Epistula-Signed-By',
        { ...good(), 'Epistula-Signed-By': ALICE.address.replace(/.$/, (c) => (c === '1' ? '2' : '1')) },
      ],
      ['Epistula-Signed-By', { ...good(), 'Epistula-Signed-By': '0OIl' }],
      ['Epistula-Timestamp', { ...good(), 'Epistula-Timestamp': new Date().toISOString() }],
      ['Epistula-Timestamp', { ...good(), 'Epistula-Timestamp': 'soon' }],
      ['Epistula-Uuid', { ...good(), 'Epistula-Uuid': 'not-a-uuid' }],
      ['Authorization', { ...good(), authorization: `Bearer ${'x'.repeat(30)}` }],
    ];
    for (const [header, headers] of cases)
      await expectRefused(() => postRaw(payload, headers), 'signature-malformed', header);
  });

  it('signature-invalid: the body altered after signing, or signed by another key', async () => {
    await setup();
    await register(ALICE);
    await register(BOB, 'bob');
    const payload = body('r1');
    const headers = sign({ key: ALICE, body: payload });
    await expectRefused(
      () => postRaw(payload.replace('true', 'false'), headers),
      'signature-invalid',
      'Epistula-Request-Signature',
    );
    // Whitespace counts: the signature covers the exact bytes, not the JSON they parse to.
    await expectRefused(
      () => postRaw(payload + ' ', sign({ key: ALICE, body: payload })),
      'signature-invalid',
      'Epistula-Request-Signature',
    );
    const byBob = { ...sign({ key: BOB, body: payload }), 'Epistula-Signed-By': ALICE.address };
    await expectRefused(() => postRaw(payload, byBob), 'signature-invalid', 'Epistula-Request-Signature');
  });

  it('checks a body before parsing it: an unsigned or altered body is a 401 even when it is not JSON', async () => {
    await setup();
    await register(ALICE);
    const broken = '{"runs": [';
    // Signed by the key, but over other bytes: the refusal is the signature's, not the JSON's 400.
    await expectRefused(
      () => postRaw(broken, sign({ key: ALICE, body: body('r1') })),
      'signature-invalid',
      'Epistula-Request-Signature',
    );
    // The same broken bytes, correctly signed: now the JSON is read, and refused as JSON.
    const res = await postRaw(broken, sign({ key: ALICE, body: broken }));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await runCount()).toBe(0);
  });

  it('signature-stale: a timestamp 9 s old or 9 s ahead', async () => {
    await setup();
    await register(ALICE);
    const payload = body('r1');
    await expectRefused(
      () => signedPost(ALICE, payload, { now: Date.now() - 9_000 }),
      'signature-stale',
      'Epistula-Timestamp',
    );
    await expectRefused(
      () => signedPost(ALICE, payload, { now: Date.now() + 9_000 }),
      'signature-stale',
      'Epistula-Timestamp',
    );
    // 5 s old is inside the window.
    expect((await signedPost(ALICE, payload, { now: Date.now() - 5_000 })).status).toBe(200);
  });

  it('signature-stale says which way the clock is off, and a timestamp in seconds is named as such', async () => {
    await setup();
    await register(ALICE);
    const payload = body('r1');
    const behind = await expectRefused(
      () => signedPost(ALICE, payload, { now: Date.now() - 9_000 }),
      'signature-stale',
      'Epistula-Timestamp',
    );
    expect(behind.detail).toMatch(/^Epistula-Timestamp is 9\d{3} ms behind the server's clock \(\d{13} ms\)/);
    const ahead = await expectRefused(
      () => signedPost(ALICE, payload, { now: Date.now() + 9_000 }),
      'signature-stale',
      'Epistula-Timestamp',
    );
    expect(ahead.detail).toMatch(/^Epistula-Timestamp is (8|9)\d{3} ms ahead of the server's clock/);
    const seconds = await expectRefused(
      () => signedPost(ALICE, payload, { now: Date.now() / 1000 }),
      'signature-stale',
      'Epistula-Timestamp',
    );
    expect(seconds.detail).toContain('Unix time in seconds: send milliseconds');
  });

  it('signature-replayed: the same request twice; the same uuid from another hotkey is its own', async () => {
    await setup();
    await register(ALICE);
    await register(BOB, 'bob');
    const payload = body('r1');
    const headers = sign({ key: ALICE, body: payload });
    expect((await postRaw(payload, headers)).status).toBe(200);
    await expectRefused(() => postRaw(payload, headers), 'signature-replayed', 'Epistula-Uuid');
    // The uuid in upper case is the same uuid.
    const upper = sign({ key: ALICE, body: payload, uuid: headers['Epistula-Uuid']!.toUpperCase() });
    await expectRefused(() => postRaw(payload, upper), 'signature-replayed', 'Epistula-Uuid');
    const fromBob = await signedPost(BOB, body('r2'), { uuid: headers['Epistula-Uuid'] });
    expect(fromBob.status, JSON.stringify(fromBob.body)).toBe(200);
    expect(await runCount()).toBe(2);
  });

  it('unknown-hotkey: never registered, or revoked', async () => {
    await setup();
    const payload = body('r1');
    await expectRefused(() => signedPost(ALICE, payload), 'unknown-hotkey', 'Epistula-Signed-By');
    const v = await register(ALICE);
    expect((await t.call({ method: 'DELETE', url: `/v1/validators/${v.body.id}`, headers: admin })).status).toBe(200);
    await expectRefused(() => signedPost(ALICE, payload), 'unknown-hotkey', 'Epistula-Signed-By');
  });

  it("a signing validator still has a validator's rights only (admin routes: 403)", async () => {
    await setup();
    await register(ALICE);
    const payload = JSON.stringify({ name: 'taken over' });
    const res = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c',
      payload,
      headers: { 'content-type': 'application/json', ...sign({ key: ALICE, body: payload }) },
    });
    expect(res.status).toBe(403);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).body.name).toBe('C');
  });
});

describe('signatures bound to this server (API.md 1.2)', () => {
  const problemOf = (res: { body: Json }) => `${res.body.detail} ${JSON.stringify(res.body.errors ?? [])}`;

  it('GET /v1/identity announces the address; a request signed for another address, or none, is a 401 naming it', async () => {
    await setup();
    await register(ALICE);
    const identity = await t.call({ method: 'GET', url: '/v1/identity' });
    expect(identity.body.hotkey).toBe(t.serverHotkey);
    expect(decodeSs58(identity.body.hotkey as string).ok).toBe(true);
    const payload = body('r1');
    const forMiner = await expectRefused(
      () => signedPost(ALICE, payload, { signedFor: BOB.address }),
      'signature-invalid',
      'Epistula-Signed-For',
    );
    expect(forMiner.detail).toContain(t.serverHotkey);
    const { 'Epistula-Signed-For': _for, ...forNoOne } = sign({ key: ALICE, body: payload });
    const missing = await expectRefused(() => postRaw(payload, forNoOne), 'signature-missing', 'Epistula-Signed-For');
    expect(missing.detail).toContain(t.serverHotkey);
    // Signed for no one as the message spells it (`{signedFor or empty}`): the header sent empty.
    const forEmpty = sign({ key: ALICE, body: payload, signedFor: '' });
    const empty = await expectRefused(() => postRaw(payload, forEmpty), 'signature-missing', 'Epistula-Signed-For');
    expect(empty.detail).toContain(t.serverHotkey);
    // Signed for the miner but the header then set to this server: the signature no longer verifies.
    const swapped = {
      ...sign({ key: ALICE, body: payload, signedFor: BOB.address }),
      'Epistula-Signed-For': t.serverHotkey,
    };
    await expectRefused(() => postRaw(payload, swapped), 'signature-invalid', 'Epistula-Request-Signature');
    expect((await signedPost(ALICE, payload)).status).toBe(200);
  });

  it("a validator's request to a miner, replayed here as a deletion, is refused and deletes nothing", async () => {
    await setup();
    await register(ALICE);
    expect((await signedPost(ALICE, body('r1'))).status).toBe(200);
    // What a miner receives from the validator every day: a body-less request signed for the miner.
    const toMiner = sign({ key: ALICE, signedFor: BOB.address });
    const res = await expectRefused(
      () => t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers: toMiner }),
      'signature-invalid',
      'Epistula-Signed-For',
    );
    expect(problemOf({ body: res })).toContain(t.serverHotkey);
    expect(await runCount()).toBe(1);
  });

  it('SCORING_SERVER_HOTKEY (signatures.serverAddress) is the address announced and required', async () => {
    await setup({ signatures: { serverAddress: SERVER.address } });
    await register(ALICE);
    expect(t.serverHotkey).toBe(SERVER.address);
    expect((await t.call({ method: 'GET', url: '/v1/identity' })).body.hotkey).toBe(SERVER.address);
    const payload = body('r1');
    const other = keypairFromSeed(new Uint8Array(32).fill(9)).address;
    const refused = await expectRefused(
      () => signedPost(ALICE, payload, { signedFor: other }),
      'signature-invalid',
      'Epistula-Signed-For',
    );
    expect(refused.detail).toContain(SERVER.address);
    expect((await signedPost(ALICE, payload, { signedFor: SERVER.address })).status).toBe(200);
  });

  it("a signed public read uses up its uuid: the leaderboard read's headers reused on a DELETE are a replay", async () => {
    await setup();
    await register(ALICE);
    expect((await signedPost(ALICE, body('r1'))).status).toBe(200);
    const headers = sign({ key: ALICE });
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard', headers })).status).toBe(200);
    await expectRefused(
      () => t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers }),
      'signature-replayed',
      'Epistula-Uuid',
    );
    await expectRefused(
      () => t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard', headers }),
      'signature-replayed',
      'Epistula-Uuid',
    );
    expect(await runCount()).toBe(1);
  });

  it('a signed request to an open route, or to no route, uses up its uuid too: its headers reused on a DELETE are a replay', async () => {
    await setup();
    await register(ALICE);
    expect((await signedPost(ALICE, body('r1'))).status).toBe(200);
    for (const [url, status] of [
      ['/v1/competitions/c/leaderbord', 404],
      ['/v1/nope', 404],
      ['/healthz', 200],
      ['/openapi.json', 200],
    ] as const) {
      const headers = sign({ key: ALICE });
      // Answered as it would be unsigned.
      expect((await t.call({ method: 'GET', url, headers })).status, url).toBe(status);
      await expectRefused(
        () => t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1', headers }),
        'signature-replayed',
        'Epistula-Uuid',
      );
    }
    expect(await runCount()).toBe(1);
  });

  it('a signed read of a warm leaderboard over the network is checked too (not answered ahead of the router)', async () => {
    await setup();
    await register(ALICE);
    expect((await signedPost(ALICE, body('r1'))).status).toBe(200);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${address}/v1/competitions/c/leaderboard`;
    expect((await fetch(url)).status).toBe(200); // warm, and answered by the kept-reads listener
    const headers = sign({ key: ALICE });
    expect((await fetch(url, { headers })).status).toBe(200);
    const again = await fetch(url, { headers });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { type: string }).type).toMatch(/:signature-replayed$/);
  });

  it('a batch signed for one competition is refused at another: signed for another server, or used up', async () => {
    await setup();
    await register(ALICE);
    await t.call({ method: 'PUT', url: '/v1/competitions/c2', headers: admin, payload: { name: 'C2' } });
    await t.call({ method: 'PUT', url: '/v1/competitions/c2/tasks', headers: admin, payload: TASKS });
    const toC2 = (payload: string, headers: Record<string, string>) =>
      t.call({
        method: 'POST',
        url: '/v1/competitions/c2/runs',
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
    const payload = body('r1');
    // Signed for c1 on another scoring server (where the same validator posts too).
    const elsewhere = keypairFromSeed(new Uint8Array(32).fill(3)).address;
    const forOther = sign({ key: ALICE, body: payload, signedFor: elsewhere });
    const refused = await expectRefused(() => toC2(payload, forOther), 'signature-invalid', 'Epistula-Signed-For');
    expect(refused.detail).toContain(t.serverHotkey);
    // Signed for c1 here and sent there: its uuid is used up.
    const headers = sign({ key: ALICE, body: payload });
    expect((await postRaw(payload, headers)).status).toBe(200);
    await expectRefused(() => toC2(payload, headers), 'signature-replayed', 'Epistula-Uuid');
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c2/runs' })).body.runs).toEqual([]);
  });

  it('a GET or DELETE that carries a body is a 400, signed or not, and deletes nothing', async () => {
    await setup();
    await register(ALICE);
    expect((await signedPost(ALICE, body('r1'))).status).toBe(200);
    const query = '{"synapse":"Query"}';
    const cases = [
      { method: 'DELETE' as const, url: '/v1/competitions/c/runs/r1', headers: sign({ key: ALICE, body: query }) },
      { method: 'DELETE' as const, url: '/v1/competitions/c/runs/r1', headers: admin },
      { method: 'GET' as const, url: '/v1/competitions/c/leaderboard', headers: sign({ key: ALICE, body: query }) },
      { method: 'GET' as const, url: '/v1/competitions', headers: {} },
    ];
    for (const c of cases) {
      const res = await t.call({ ...c, headers: { ...c.headers, 'content-type': 'application/json' }, payload: query });
      expect(res.status, `${c.method} ${c.url}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemOf(res)).toContain('headers/content-length');
    }
    expect(await runCount()).toBe(1);
  });

  it('refuses an unknown hotkey or a stale timestamp before reading the body: a body that never ends gets its 401 at once', async () => {
    await setup();
    await register(ALICE);
    const address = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
    const garbage = { 'Epistula-Request-Signature': `0x${'ab'.repeat(64)}` };
    for (const [headers, reason] of [
      [{ ...sign({ key: BOB, body: 'x' }), ...garbage }, 'unknown-hotkey'],
      [sign({ key: ALICE, body: 'x', now: Date.now() - 60_000 }), 'signature-stale'],
    ] as const) {
      const answer = await unfinishedPost(address, headers);
      expect(answer.status, answer.text).toBe(401);
      expect(answer.text).toContain(reason);
    }
  });

  it('an Epistula header sent on two lines is refused as sent more than once, over the wire too', async () => {
    await setup();
    await register(ALICE);
    const address = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
    // Node joins a repeated header it does not know into one value ("a, a"): read as one, it was
    // refused for its shape ("must be 2" of a client sending 2), not for being sent twice.
    for (const name of ['Epistula-Version', 'Epistula-Uuid', 'Epistula-Signed-For']) {
      const headers: Record<string, string | string[]> = sign({ key: ALICE, body: 'x' });
      headers[name] = [headers[name] as string, headers[name] as string];
      const answer = await unfinishedPost(address, headers);
      expect(answer.status, answer.text).toBe(401);
      expect(answer.text).toContain('signature-malformed');
      expect(answer.text, name).toContain(`the ${name} header is sent more than once`);
    }
    expect(await runCount()).toBe(0);
  });

  it('a replay is refused after a restart with a wider window, once the narrower window is long past', async () => {
    const dir = tempDir('signed-window');
    const path = join(dir.dir, 'scoring.db');
    try {
      await setup({ path, signatures: { windowMs: 1000, serverAddress: SERVER.address } });
      await register(ALICE);
      const payload = body('r1');
      const signedAt = Date.now() - 900;
      const headers = sign({ key: ALICE, body: payload, now: signedAt });
      expect((await postRaw(payload, headers)).status).toBe(200);
      await t.close();
      // Past the narrow window and its second of slack: a nonce kept only that long is gone.
      await new Promise((r) => setTimeout(r, Math.max(0, signedAt + 2200 - Date.now())));
      t = await testApp({ path, signatures: { windowMs: 60_000, serverAddress: SERVER.address } });
      // Any signed request gives the server its chance to prune.
      expect((await signedPost(ALICE, body('r2'))).status).toBe(200);
      await expectRefused(() => postRaw(payload, headers), 'signature-replayed', 'Epistula-Uuid');
    } finally {
      dir.remove();
    }
  });
});

/**
 * POSTs runs with these headers, a Content-Length of 1 MB and 10 bytes of body that never go on,
 * and gives the answer that came before the body did (after 5 s: status 0).
 */
function unfinishedPost(
  address: URL,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(address.port), address.hostname);
    let text = '';
    const timer = setTimeout(() => finish(0), 5000);
    const finish = (status: number) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, text });
    };
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m && text.includes('\r\n\r\n{')) finish(Number(m[1]));
    });
    const lines = Object.entries({ ...headers, 'content-type': 'application/json', 'content-length': '1000000' })
      .flatMap(([k, v]) => [v].flat().map((line) => `${k}: ${line}\r\n`))
      .join('');
    socket.write(`POST /v1/competitions/c/runs HTTP/1.1\r\nhost: ${address.host}\r\n${lines}\r\n{"runs": [`);
  });
}
