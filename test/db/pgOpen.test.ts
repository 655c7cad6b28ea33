// A server process's storage on PostgreSQL (src/db/pg/open.ts): its own commits keep its caches
// exact (told as write events, never as a peer's write or a rebuild), while another process's
// commits reach it as a `peer` event of their competition, by notification and, for certain, by the
// version read of sync(); its scoring input then reads the pairs the peer stamped.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WriteEvent } from '../../src/db/events.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import type { Store } from '../../src/db/contract.js';
import type { SavedScores } from '../../src/db/capabilities.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgOpen.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

const W = { input: 1, cachedInput: 0.1, output: 3 };

describe.runIf(server.available)('two processes on one PostgreSQL database', () => {
  let scratch: ScratchDatabase;
  let a: Store;
  let b: Store;
  const events: { a: WriteEvent[]; b: WriteEvent[] } = { a: [], b: [] };
  /** Events telling of writes this store did not make (or not knowingly): a peer's, or a rebuild. */
  const toldOthers = (list: WriteEvent[]) => list.filter((e) => e.kind === 'peer' || e.kind === 'rebuild').length;

  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_open');
    await migratePostgres(scratch.url);
    a = await openPostgresStore(scratch.url, { max: 3 });
    b = await openPostgresStore(scratch.url, { max: 3 });
    a.listeners.add((e) => events.a.push(e));
    b.listeners.add((e) => events.b.push(e));
    await a.transaction((tx) => tx.competitions.upsert('c', { name: 'C' }).then(() => undefined), {
      competitionId: 'c',
    });
    await a.transaction(
      (tx) =>
        tx.tasks
          .upsertMany('c', [
            {
              id: 't',
              type: 'swebench_verified',
              stage: 'evaluation',
              complexity: null,
              plannedRuns: null,
              qna: null,
              rubric: [],
            },
          ])
          .then(() => undefined),
      { competitionId: 'c' },
    );
    await a.capabilities.freshness!.sync('c');
    await b.capabilities.freshness!.sync('c');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await scratch?.drop();
  });

  const run = (id: string) => ({
    competitionId: 'c',
    runId: id,
    taskId: 't',
    kind: 'miner' as const,
    minerHotkey: 'm',
    validatorId: null,
    attemptNo: null,
    resolved: true,
    tokens: null,
    timeTakenSeconds: null,
    agentSteps: null,
    rubricVotes: null,
    criteria: null,
  });
  const insert = (s: Store, id: string) =>
    s.transaction((tx) => tx.runs.insertMany([run(id)], W), { competitionId: 'c' });

  it("a process's own writes are told as pair events, not rebuilds, notification or not", async () => {
    events.a.length = 0;
    for (let i = 0; i < 25; i++) {
      // Version reads racing the commit: some see the new version before the COMMIT's answer is back.
      const racing = Array.from({ length: 8 }, (_, k) =>
        new Promise((r) => setTimeout(r, k / 2)).then(() => a.capabilities.freshness!.sync('c')),
      );
      await Promise.all([insert(a, `own${i}`), ...racing]);
    }
    await new Promise((r) => setTimeout(r, 300)); // every notification of those commits has arrived
    await a.capabilities.freshness!.sync('c');
    expect(events.a.filter((e) => e.kind === 'pair')).toHaveLength(25);
    expect(toldOthers(events.a)).toBe(0);
  });

  it("another process's write is told on the next sync, even before its notification", async () => {
    events.a.length = 0;
    events.b.length = 0;
    await insert(b, 'other1');
    // Right after b's acknowledgement, riding one version read with a read of another competition.
    await Promise.all([a.capabilities.freshness!.sync('elsewhere'), a.capabilities.freshness!.sync('c')]);
    expect(toldOthers(events.a)).toBeGreaterThanOrEqual(1);
    expect(toldOthers(events.b)).toBe(0);
    const loaded = await a.scoringInput.load('c', W);
    expect([...loaded.minerTasks].find((e) => e.hotkey === 'm')?.runs).toBe(26);
  });

  it('a rolled-back transaction leaves no version behind that would hide another process', async () => {
    events.a.length = 0;
    await expect(
      a.transaction(
        async (tx) => {
          await tx.runs.insertMany([run('rolled')], W);
          throw new Error('changed my mind');
        },
        { competitionId: 'c' },
      ),
    ).rejects.toThrow('changed my mind');
    // b now commits the very version number a's rolled-back transaction had taken.
    await insert(b, 'other2');
    await a.capabilities.freshness!.sync('c');
    expect(toldOthers(events.a)).toBe(1);
    const loaded = await a.scoringInput.load('c', W);
    expect([...loaded.minerTasks].find((e) => e.hotkey === 'm')?.runs).toBe(27);
  });

  it('after its notifier reconnects, a process tells of each competition written meanwhile at once, and logs the loss', async () => {
    // A write made while the notifications' connection was away reaches no notification: without a
    // rebuild told at the reconnect, an event stream heard of it only after some read of it.
    const warnings: string[] = [];
    const watched = await openPostgresStore(scratch.url, { max: 1, logger: { warn: (_o, msg) => warnings.push(msg) } });
    const told: WriteEvent[] = [];
    watched.listeners.add((e) => told.push(e));
    const direct = new pg.Client({ connectionString: scratch.url });
    await direct.connect();
    try {
      await Promise.all(['c', 'quiet'].map((id) => watched.capabilities.freshness!.sync(id)));
      told.length = 0;
      await direct.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name LIKE 'swe-scoring listen %'`,
      );
      await insert(b, 'in-the-gap');
      await vi.waitFor(() => expect(told.filter((e) => e.competitionId === 'c' && e.kind === 'peer')).not.toEqual([]), {
        timeout: 8000,
        interval: 50,
      });
      expect(warnings.some((m) => m.includes('notifier'))).toBe(true);
      // A competition no process wrote in the gap keeps what it has: no rebuild of it.
      expect(told.filter((e) => e.competitionId === 'quiet')).toEqual([]);
    } finally {
      await direct.end();
      await watched.close();
    }
  });

  it("a read catches up with its own competition only: another's saved scores stay restorable", async () => {
    await a.capabilities.freshness!.sync('c');
    const saved = { competitionId: 'c', stages: ['evaluation'], scores: { stages: ['evaluation'] } };
    expect(await a.capabilities.savedScores!.save('code', () => [saved as SavedScores])).toBe(1);
    const started = await openPostgresStore(scratch.url, { max: 1 });
    try {
      // Reads of another competition, sharing version reads, before the first read of c.
      await Promise.all(['other', 'another'].map((id) => started.capabilities.freshness!.sync(id)));
      expect(await started.capabilities.savedScores!.load('code', 'c')).toMatchObject({ competitionId: 'c' });
    } finally {
      await started.close();
    }
  });
});
