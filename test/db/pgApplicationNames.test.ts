// Who is who in pg_stat_activity: every connection a server process opens to PostgreSQL names its
// kind (pool, the notifier's LISTEN, the version reads, the migrations) and the process (host and
// pid), after the operator's instance label when one is set (SCORING_INSTANCE_LABEL), so an
// operator tells one kind from another and one replica from another. Each name is ASCII and fits
// PostgreSQL's 63 bytes, which it would otherwise cut short without a word.
import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/contract.js';
import { applicationName } from '../../src/db/applicationName.js';
import { migratePostgres } from '../../src/db/pg/migrate.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgApplicationNames.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

/** The migrations' advisory lock (src/db/pg/migrate.ts): held here, a starting server waits on it, visibly. */
const MIGRATION_LOCK = '32500898759272807';
const host = hostname().split('.')[0]!;
const self = `${host}:${process.pid}`;

describe.runIf(server.available)('application_name of each connection', () => {
  let scratch: ScratchDatabase;
  let admin: pg.Client;
  const stores: Store[] = [];
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_app_names');
    await migratePostgres(scratch.url);
    admin = new pg.Client({ connectionString: scratch.url, application_name: 'test-admin' });
    await admin.connect();
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
    await scratch?.drop();
  });

  /** The names of the sessions on the scratch database but this test's own, each with its count. */
  async function sessions(): Promise<Record<string, number>> {
    const { rows } = await admin.query<{ name: string; n: number }>(
      `SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }

  /** Opens a store, makes it use each kind of connection, and waits until its notifier listens. */
  async function open(instanceLabel?: string): Promise<Store> {
    const store = await openPostgresStore(scratch.url, { max: 2, instanceLabel });
    stores.push(store);
    await store.competitions.list();
    await store.capabilities.freshness!.sync('c');
    for (let i = 0; !store.capabilities.postgres!.notifier().listening; i++) {
      if (i > 500) throw new Error('the notifier never listened');
      await new Promise((r) => setTimeout(r, 10));
    }
    return store;
  }

  it('names the migrations, the pool, the notifier and the version reads apart, with the label', async () => {
    // The migrations' connection, waiting on the lock held here, shows its name.
    await admin.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    const opening = open('blue-1');
    let waiting: string[] = [];
    try {
      for (let i = 0; waiting.length === 0 && i < 500; i++) {
        await new Promise((r) => setTimeout(r, 10));
        const { rows } = await admin.query<{ name: string }>(
          `SELECT application_name AS name FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock%'`,
        );
        waiting = rows.map((r) => r.name);
      }
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
    expect(waiting).toEqual([`swe-scoring migrate blue-1 ${self}`]);
    await opening;

    expect(Object.keys(await sessions())).toEqual([
      `swe-scoring listen blue-1 ${self}`,
      `swe-scoring pool blue-1 ${self}`,
      `swe-scoring versions blue-1 ${self}`,
    ]);
  });

  it('tells two instances apart by their label, and names the process alone without one', async () => {
    await open('green-2');
    await open();
    const names = Object.keys(await sessions());
    for (const kind of ['listen', 'pool', 'versions']) {
      expect(names).toContain(`swe-scoring ${kind} blue-1 ${self}`);
      expect(names).toContain(`swe-scoring ${kind} green-2 ${self}`);
      expect(names).toContain(`swe-scoring ${kind} ${self}`);
    }
    expect(names).toHaveLength(9);
  });

  it('keeps a name within 63 bytes of ASCII: a long host name keeps its end, which tells pods apart', async () => {
    const pod = 'swe-scoring-deployment-5d8f7b9c4-x2k9p.scoring.svc.cluster.local';
    const longest = applicationName('versions', 'a'.repeat(20), pod, 4_194_304);
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(63);
    expect(longest).toMatch(/^swe-scoring versions a{20} ~[\x21-\x7e]*-x2k9p:4194304$/);
    expect(applicationName('pool', null, 'héte\u0000l', 7)).toBe('swe-scoring pool h?te?l:7');
    // PostgreSQL keeps it whole: what it shows is what was asked for.
    const client = new pg.Client({ connectionString: scratch.url, application_name: longest });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(`SELECT current_setting('application_name') AS name`);
      expect(rows[0]!.name).toBe(longest);
    } finally {
      await client.end();
    }
  });
});
