// sr25519 on a worker thread (src/services/verifyInWorker.ts): signed requests checked there give
// the answers the main thread's check gives, concurrent ones each their own, and checks in flight
// when the worker stops are answered all the same (run on the main thread).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/client/sign.js';
import {
  terminateVerifyWorkerForTests,
  verifyInWorker,
  verifyWorkerRunning,
} from '../../src/services/verifyInWorker.js';
import { signatureValid } from '../../src/signatures/epistula.js';
import { epistulaMessage } from '../../src/signatures/message.js';
import { sign } from '@scure/sr25519';
import { admin, testApp, type TestApp } from '../support/app.js';
import { ALICE, BOB, SERVER } from '../signatures/fixtures.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('verifyInWorker', () => {
  it('answers as the main thread would: a good signature, another message, another key, a key that is no point', async () => {
    const message = new TextEncoder().encode(epistulaMessage('ab'.repeat(32), randomUUID(), '1', SERVER.address));
    const signature = sign(ALICE.secretKey, message);
    const cases = [
      { message, signature, publicKey: ALICE.publicKey },
      { message: message.slice(1), signature, publicKey: ALICE.publicKey },
      { message, signature, publicKey: BOB.publicKey },
      { message, signature, publicKey: new Uint8Array(32).fill(0xff) },
      { message, signature: new Uint8Array(64), publicKey: ALICE.publicKey },
    ];
    const inWorker = await Promise.all(cases.map(verifyInWorker));
    expect(inWorker).toEqual([true, false, false, false, false]);
    expect(inWorker).toEqual(cases.map((c) => signatureValid(c)));
    expect(verifyWorkerRunning()).toBe(true);
  });

  it('answers the checks posted to a worker that stops: each then runs on the main thread', async () => {
    const message = new TextEncoder().encode('a message');
    const good = { message, signature: sign(ALICE.secretKey, message), publicKey: ALICE.publicKey };
    const bad = { ...good, publicKey: BOB.publicKey };
    await verifyInWorker(good); // the worker is up
    const pending = Promise.all(Array.from({ length: 40 }, (_, i) => verifyInWorker(i % 2 ? bad : good)));
    await terminateVerifyWorkerForTests();
    expect(await pending).toEqual(Array.from({ length: 40 }, (_, i) => i % 2 === 0));
    expect(await verifyInWorker(good)).toBe(true);
  });
});

describe('signed requests checked on the worker', () => {
  async function setup() {
    t = await testApp({
      door: { rateLimits: { signatureFailures: 0 } },
      signatures: { serverAddress: SERVER.address },
    });
    await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'C' } });
    const tasks = { tasks: [{ id: 't1', type: 'swebench_verified' }] };
    await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: tasks });
    const v = { name: 'alice', hotkey: ALICE.address };
    expect((await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: v })).status).toBe(201);
  }

  /** A batch of one run, signed by Alice, or by Bob claiming to be her. */
  const post = (runId: string, forged: boolean) => {
    const payload = JSON.stringify({
      runs: [{ runId, taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
    });
    const headers = signRequest({ key: forged ? BOB : ALICE, body: payload, signedFor: SERVER.address });
    headers['Epistula-Signed-By'] = ALICE.address;
    return t!.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });
  };
  const statuses = (n: number, prefix: string) =>
    Promise.all(Array.from({ length: n }, (_, i) => post(`${prefix}${i}`, i % 2 === 1).then((res) => res.status)));

  it('gives each of many concurrent requests its own answer', async () => {
    await setup();
    const got = await statuses(24, 'r');
    expect(got).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 1 ? 401 : 200)));
    expect(await t!.count('runs')).toBe(12);
  });

  it('answers requests racing a stop of the worker, and starts a new one for the next', async () => {
    await setup();
    await statuses(2, 'warm'); // the worker is up
    const pending = statuses(24, 'r');
    await terminateVerifyWorkerForTests();
    expect(await pending).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 1 ? 401 : 200)));
    expect((await post('after', false)).status).toBe(200);
    expect((await post('after-forged', true)).status).toBe(401);
    expect(verifyWorkerRunning()).toBe(true);
    expect(await t!.count('runs')).toBe(1 + 12 + 1);
  });
});
