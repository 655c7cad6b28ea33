// The write notifier (src/db/pg/notifier.ts) on a real server, when nothing fails: what pg_notify
// sends in a committed transaction arrives parsed, malformed payloads and other channels are
// ignored, a throwing callback does not stop it, and close() stops it for good.
// Its reconnects under real faults are in pgFaults.test.ts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgres } from '../../src/db/pg/client.js';
import { startNotifier, WRITES_CHANNEL, type WriteNotification } from '../../src/db/pg/notifier.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';

const server = await testPostgres('test/db/pgNotifier.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe.runIf(server.available)('the write notifier', () => {
  let scratch: ScratchDatabase;
  let direct: pg.Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase('pg_notifier');
    direct = await openPostgres(scratch.url, { max: 2 });
  });
  afterAll(async () => {
    await direct?.end();
    await scratch?.drop();
  });

  function listen(applicationName: string) {
    const got: WriteNotification[] = [];
    const warnings: { obj: object; msg: string }[] = [];
    let resets = 0;
    const notifier = startNotifier(scratch.url, {
      applicationName,
      onNotify: (n) => got.push(n),
      onReset: () => (resets += 1),
      logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    });
    return { notifier, got, warnings, resets: () => resets };
  }

  const notify = (payload: string, channel = WRITES_CHANNEL) =>
    direct.query('SELECT pg_notify($1, $2)', [channel, payload]);

  it('delivers each committed notification, parsed, in order; not those of a rolled back transaction', async () => {
    const { notifier, got, resets } = listen('swe-test-notify-order');
    try {
      await notifier.ready();
      expect(notifier.connected()).toBe(true);
      await notify(JSON.stringify({ competitionId: 'c1', version: 1 }));
      const tx = await direct.connect();
      try {
        await tx.query('BEGIN');
        await tx.query('SELECT pg_notify($1, $2)', [
          WRITES_CHANNEL,
          JSON.stringify({ competitionId: 'c1', version: 9 }),
        ]);
        await tx.query('ROLLBACK');
      } finally {
        tx.release();
      }
      await notify(JSON.stringify({ competitionId: 'c2', version: 7 }));
      await vi.waitFor(() => expect(got).toHaveLength(2));
      expect(got).toEqual([
        { competitionId: 'c1', version: 1 },
        { competitionId: 'c2', version: 7 },
      ]);
      expect(resets()).toBe(0); // the first connect is no reset
    } finally {
      await notifier.close();
    }
  });

  it('ignores malformed payloads and other channels, logging the malformed ones', async () => {
    const { notifier, got, warnings } = listen('swe-test-notify-malformed');
    try {
      await notifier.ready();
      for (const bad of ['not json', '{"competitionId":1,"version":1}', '{"competitionId":"c","version":-1}', '[]', ''])
        await notify(bad);
      await notify(JSON.stringify({ competitionId: 'elsewhere', version: 1 }), 'another_channel');
      await notify(JSON.stringify({ competitionId: 'c3', version: 3 }));
      await vi.waitFor(() => expect(got).toEqual([{ competitionId: 'c3', version: 3 }]));
      expect(warnings.filter((w) => w.msg.includes('malformed'))).toHaveLength(5);
      expect(notifier.connected()).toBe(true);
    } finally {
      await notifier.close();
    }
  });

  it('a callback that throws is logged and the next notification still arrives', async () => {
    const got: WriteNotification[] = [];
    const warnings: string[] = [];
    const notifier = startNotifier(scratch.url, {
      onNotify: (n) => {
        got.push(n);
        if (n.version === 1) throw new Error('caller bug');
      },
      onReset: () => {},
      logger: { warn: (_obj, msg) => warnings.push(msg) },
    });
    try {
      await notifier.ready();
      await notify(JSON.stringify({ competitionId: 'c', version: 1 }));
      await notify(JSON.stringify({ competitionId: 'c', version: 2 }));
      await vi.waitFor(() => expect(got.map((n) => n.version)).toEqual([1, 2]));
      expect(warnings).toEqual(['PostgreSQL notifier: onNotify threw']);
      expect(notifier.connected()).toBe(true);
    } finally {
      await notifier.close();
    }
  });

  it('close() stops it for good: its session ends and nothing more is delivered', async () => {
    const { notifier, got } = listen('swe-test-notify-close');
    await notifier.ready();
    const sessions = async () =>
      (
        await direct.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'swe-test-notify-close'`,
        )
      ).rows[0] as { n: number };
    expect(await sessions()).toEqual({ n: 1 });
    await notifier.close();
    expect(notifier.connected()).toBe(false);
    await notify(JSON.stringify({ competitionId: 'c', version: 1 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toEqual([]);
    expect(await sessions()).toEqual({ n: 0 });
  });

  it('ready() rejects when closed before it ever connected', async () => {
    // Nothing listens on port 1: every attempt is refused, so it never connects.
    const notifier = startNotifier('postgres://postgres@127.0.0.1:1/none', {
      onNotify: () => {},
      onReset: () => {},
      minBackoffMs: 10,
    });
    const ready = notifier.ready();
    await new Promise((r) => setTimeout(r, 50));
    expect(notifier.connected()).toBe(false);
    await notifier.close();
    await expect(ready).rejects.toThrow('closed');
  });
});
