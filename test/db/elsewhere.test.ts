// A transaction run elsewhere (src/db/sqlite/elsewhere.ts) keeps a transaction's promises: all of
// its writes commit together or none, a savepoint rolled back inside it takes back only its own
// writes, an error comes back and can be caught, and the events are told once, after the commit.
// Real SQLite files through the real migrations; the worker is the real one.
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/client.js';
import type { Store } from '../../src/db/contract.js';
import type { WriteEvent } from '../../src/db/events.js';
import { createSqliteStore } from '../../src/db/sqlite/store.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

let dir: TempDir;
let db: Db;
let store: Store;
let told: WriteEvent[];
beforeEach(() => {
  dir = tempDir('elsewhere');
  db = openDatabase(join(dir.dir, 'x.db'));
  store = createSqliteStore(db);
  told = [];
  store.listeners.add((e) => told.push(e));
});
afterEach(async () => {
  await store.close();
  dir.remove();
});

const names = async () => (await store.competitions.list()).map((c) => c.id).sort();
const elsewhere = <T>(fn: (tx: Store) => Promise<T>) => store.transaction(fn, { competitionId: 'a', recounts: true });

it('commits every write together, and tells their events once it has', async () => {
  const result = await elsewhere(async (tx) => {
    await tx.competitions.upsert('a', { name: 'A' });
    await tx.competitions.upsert('b', { name: 'B' });
    // The main connection still reads the state before.
    expect(await names()).toEqual([]);
    expect(told).toEqual([]);
    return (await tx.competitions.get('b'))!.name;
  });
  expect(result).toBe('B');
  expect(await names()).toEqual(['a', 'b']);
  expect(told).toEqual([
    { competitionId: 'a', kind: 'settings' },
    { competitionId: 'b', kind: 'settings' },
  ]);
});

it('rolls every write back when the function throws, and tells nothing', async () => {
  const failing = elsewhere(async (tx) => {
    await tx.competitions.upsert('a', { name: 'A' });
    throw new Error('no');
  });
  await expect(failing).rejects.toThrow('no');
  expect(await names()).toEqual([]);
  expect(told).toEqual([]);
});

it('a savepoint rolled back takes back its own writes only', async () => {
  await elsewhere(async (tx) => {
    await tx.competitions.upsert('a', { name: 'A' });
    await expect(
      tx.transaction(async (inner) => {
        await inner.competitions.upsert('b', { name: 'B' });
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    await tx.transaction(async (inner) => inner.competitions.upsert('c', { name: 'C' }));
  });
  expect(await names()).toEqual(['a', 'c']);
});

it("brings a repository's error back, and the transaction goes on past it", async () => {
  await store.competitions.upsert('a', { name: 'A' });
  await elsewhere(async (tx) => {
    const refused = tx.judges.record('nowhere', '{}', 'd'.repeat(64), {
      input: 1,
      cachedInput: 0.1,
      output: 1,
    });
    // The judge's row names a competition that does not exist: its foreign key refuses it.
    await expect(refused).rejects.toThrow(/FOREIGN KEY/);
    await tx.competitions.upsert('b', { name: 'B' });
  });
  expect(await names()).toEqual(['a', 'b']);
  // A write on the main connection after it: the connection is free again.
  await store.transaction(async (tx) => tx.competitions.upsert('c', { name: 'C' }));
  expect(await names()).toEqual(['a', 'b', 'c']);
});
