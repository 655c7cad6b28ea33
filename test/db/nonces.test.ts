// The nonce table refuses a pair the second time, and its cheaper commit leaves the connection as
// durable as before for every other write.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { noncesRepo } from '../../src/db/nonces.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('nonces');
afterAll(() => dir.remove());

it('accepts a pair once, keeps synchronous FULL for other writes, and keeps pairs across a reopen', () => {
  const path = join(dir.dir, 'n.db');
  const db = openDatabase(path);
  const nonces = noncesRepo(db);
  const FULL = 2;
  expect(db.$client.pragma('synchronous', { simple: true })).toBe(FULL);
  expect(nonces.remember('ab', 'u1', 10)).toBe(true);
  expect(nonces.remember('ab', 'u1', 10)).toBe(false);
  expect(nonces.remember('cd', 'u1', 10)).toBe(true);
  expect(db.$client.pragma('synchronous', { simple: true })).toBe(FULL);
  // Inside a caller's transaction the pair joins that transaction.
  db.$client.transaction(() => expect(nonces.remember('ab', 'u2', 20)).toBe(true))();
  expect(db.$client.pragma('synchronous', { simple: true })).toBe(FULL);
  db.$client.close();

  const again = noncesRepo(openDatabase(path));
  expect(again.remember('ab', 'u1', 10)).toBe(false);
  expect(again.remember('ab', 'u2', 20)).toBe(false);
  expect(again.prune(15)).toBe(2);
  expect(again.remember('ab', 'u1', 10)).toBe(true);
});
