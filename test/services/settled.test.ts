// Values that may still be computing (src/services/settled.ts), and the score cache and view bodies
// that read through them: a warm read is answered without a promise, a first read by one.
import { afterEach, expect, it } from 'vitest';
import type { Body } from '../../src/http/body.js';
import type { View } from '../../src/services/scores/views.js';
import { chain, Settled } from '../../src/services/settled.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

it('keeps a fulfilled value and hands it out without a promise', async () => {
  let fulfil!: (n: number) => void;
  const s = new Settled(new Promise<number>((r) => (fulfil = r)));
  expect(s.get()).toBe(s.promise);
  fulfil(7);
  await s.promise;
  expect(s.get()).toBe(7);
});

it('hands out the rejected promise, never a value, when the computation fails', async () => {
  const s = new Settled(Promise.reject(new Error('no')));
  await expect(s.promise).rejects.toThrow('no');
  expect(s.get()).toBeInstanceOf(Promise);
  await expect(s.get()).rejects.toThrow('no');
});

it('chains at once on a value and by promise on a promise', async () => {
  const order: string[] = [];
  const now = chain(2, (n) => {
    order.push('value');
    return n * 3;
  });
  expect(now).toBe(6);
  const later = chain(Promise.resolve(2), (n) => {
    order.push('promise');
    return n * 3;
  });
  expect(later).toBeInstanceOf(Promise);
  expect(order).toEqual(['value']);
  expect(await later).toBe(6);
  // A function that itself waits is waited for.
  expect(await chain(1, (n) => Promise.resolve(n + 1))).toBe(2);
});

it('answers a warm score read without a promise, and a read after a write by one', async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 't1', type: 'swebench_verified' }] },
  });
  const post = (runId: string, kind: 'miner' | 'baseline') =>
    t!.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: {
        runs: [{ runId, taskId: 't1', kind, resolved: true, ...(kind === 'miner' ? { minerHotkey: 'm1' } : {}) }],
      },
    });
  expect((await post('b1', 'baseline')).status).toBe(200);
  expect((await post('r1', 'miner')).status).toBe(200);
  const scores = t.app.services.scores;
  const { views } = t.app;
  const first = scores.leaderboard('c');
  expect(first).toBeInstanceOf(Promise);
  const body = views.body(await first);
  expect(body).not.toBeInstanceOf(Promise);
  // The computed scores are kept by the time the first read settles, and so are the bytes made from them.
  const warm = scores.leaderboard('c');
  expect(warm).not.toBeInstanceOf(Promise);
  expect(views.body(warm as View)).toBe(body);
  const weights = scores.weights('c');
  expect(weights).not.toBeInstanceOf(Promise);
  expect(views.body(weights as View)).toBeInstanceOf(Promise);
  await views.body(weights as View);
  expect(views.body(scores.weights('c') as View)).not.toBeInstanceOf(Promise);

  expect((await post('r2', 'miner')).status).toBe(200);
  const after = scores.leaderboard('c');
  expect(after).toBeInstanceOf(Promise);
  expect((views.body(await after) as Body).etag).not.toBe((body as Body).etag);
});
