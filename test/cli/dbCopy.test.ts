// `swe-scoring db copy`: a SQLite database with real content (the demo, then deletions, audit
// entries, snapshots, a signing validator and its nonces, exclusions, extreme values, counters
// above the largest sequence number in use) copied into a fresh PostgreSQL database and back into
// a new SQLite file comes back row for row, byte for byte, counters included. A non-empty target
// is refused, a failure part way leaves the target empty, and writes made during a copy stay out
// of it (the source is read in one snapshot).
import { generateKeyPairSync } from 'node:crypto';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { is } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/client/sign.js';
import { copyDatabase, copyTables, type Endpoint } from '../../src/tools/copy/index.js';
import { openDatabase } from '../../src/db/client.js';
import { snapshotsRepo } from '../../src/db/snapshots.js';
import { noncesRepo } from '../../src/db/nonces.js';
import * as sqliteSchema from '../../src/db/schema.js';
import { ADMIN_TOKEN, admin, testApp } from '../support/app.js';
import { rowsDiff, tableRows, withReadOnly, type Sqlite } from '../support/dbDump.js';
import { createScratchDatabase, testPostgres, type ScratchDatabase } from '../support/postgres.js';
import { tempDir } from '../support/tempDir.js';
import { ALICE } from '../signatures/fixtures.js';
import { cli } from './cli.js';

const dir = tempDir('db-copy');
afterAll(() => dir.remove());
const file = (name: string) => join(dir.dir, name);
const sqlite = (name: string): Endpoint => ({ engine: 'sqlite', path: file(name) });

/**
 * Every table of the SQLite schema but saved_scores, plus SQLite's own counters and the migrations
 * it records. saved_scores is the server's start-up cache of its own scores (src/db/savedScores.ts),
 * not content: a copy leaves it out and the copy's first start computes.
 */
const TABLES = [
  ...Object.values(sqliteSchema)
    .filter((t) => is(t, SQLiteTable))
    .map((t) => getTableConfig(t).name)
    .filter((name) => name !== 'saved_scores'),
  'sqlite_sequence',
  '__drizzle_migrations',
].sort();

/** Every row of every table, each table in a fixed order. */
const dump = (db: Sqlite) => Object.fromEntries(TABLES.map((t) => [t, tableRows(db, t)]));
const dumpFile = (path: string) => withReadOnly(path, dump);

function expectSameRows(actual: Record<string, unknown[]>, expected: Record<string, unknown[]>) {
  for (const t of TABLES) expect(rowsDiff(actual[t] as never, expected[t] as never), t).toBeNull();
}

/** 2^53 + 1: a SQLite integer a double cannot hold. */
const BEYOND_DOUBLE = 9007199254740993n;

/**
 * The demo's competition (QnA tasks with criteria, graded runs, a validator), then through the
 * app's own routes: a second competition with settings off the defaults, a signing validator whose
 * signed batch leaves a nonce, deletions, exclusions, a revoked validator, a metagraph and snapshots.
 */
async function seedSource(path: string): Promise<void> {
  const demo = await cli('demo', ['--no-serve'], { DATABASE_PATH: path, SCORING_ADMIN_TOKEN: ADMIN_TOKEN });
  expect(demo.code, demo.stderr).toBe(0);
  const t = await testApp({ path });
  const ok = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown, headers = admin) => {
    const res = await t.call({ method, url, headers, payload: payload as never });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  try {
    await ok('PUT', '/v1/competitions/zweite', {
      name: 'Zweite Runde — ünïcode ✓ "quoted" \\ back',
      tokenWeights: { input: 0.1 + 0.2, cachedInput: 1e-300, output: 123456.789 },
      burnRatio: 1 / 3,
      judgeVotes: 3,
      finalStages: ['evaluation'],
      revealAnswers: true,
    });
    await ok('PUT', '/v1/competitions/zweite/tasks', {
      tasks: [
        { id: 't1', type: 'swebench_verified', complexity: 'short' },
        { id: 't2', type: 'swebench_verified', stage: 'screener_1' },
      ],
    });
    await ok('POST', '/v1/validators', { name: 'alice', hotkey: ALICE.address });
    const body = JSON.stringify({
      runs: [
        {
          runId: 'big',
          taskId: 't1',
          kind: 'miner',
          minerHotkey: 'm-big',
          resolved: true,
          tokens: { input: Number.MAX_SAFE_INTEGER, cachedInput: 0, output: 7 },
          timeTakenSeconds: 0.1 + 0.2,
          agentSteps: 12,
        },
        { runId: 'b1', taskId: 't1', kind: 'baseline', resolved: false, tokens: { input: 5, output: 1 } },
        { runId: 'b2', taskId: 't2', kind: 'baseline', resolved: true, tokens: { input: 9, output: 2 } },
        { runId: 'gone', taskId: 't2', kind: 'miner', minerHotkey: 'm2', resolved: true },
      ],
    });
    // Signed by a validator: stores its (public key, uuid) in signature_nonces.
    const signed = await t.call({
      method: 'POST',
      url: '/v1/competitions/zweite/runs',
      headers: { ...signRequest({ key: ALICE, body, signedFor: t.serverHotkey }), 'content-type': 'application/json' },
      payload: body,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    await ok('POST', '/v1/competitions/zweite/snapshots', { note: 'before deletions' });
    await ok('DELETE', '/v1/competitions/zweite/runs/gone');
    await ok('DELETE', '/v1/competitions/demo/runs/baseline.6905333b74f22949d97baa22.0');
    const board = (await ok('GET', '/v1/competitions/demo/leaderboard')) as { miners: { hotkey: string }[] };
    await ok('PUT', `/v1/competitions/demo/miners/${board.miners[0]!.hotkey}`, {
      excluded: true,
      reason: 'copied\nacross {a,b} "q" \\ ∅',
    });
    const validators = (await ok('POST', '/v1/validators', { name: 'short-lived' })) as { id: string };
    await ok('PUT', `/v1/competitions/demo/validators/${validators.id}`, { excluded: true, reason: 'NULL' });
    await ok('DELETE', `/v1/validators/${validators.id}`);
    // A metagraph (its double limit kept to the bit), so the last snapshot carries weights on chain.
    await ok('PUT', '/v1/competitions/zweite/metagraph', {
      netuid: 65535,
      block: Number.MAX_SAFE_INTEGER,
      neurons: [{ uid: 65535, hotkey: ALICE.address, validator: true }],
      maxWeightLimit: 0.1 + 0.2,
    });
    // A judge configuration (text with a newline and a non-ASCII character, a nested schema).
    await ok('PUT', '/v1/competitions/zweite/judge', {
      model: 'judge-ü',
      reasoningEffort: 'high',
      votes: 3,
      temperature: 0.1 + 0.2,
      promptTemplate: 'Answer of {answer_date}:\n{answer}',
      outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } } },
    });
    await ok('POST', '/v1/competitions/demo/snapshots', {});
    await ok('POST', '/v1/competitions/zweite/snapshots', {});
    noncesRepo(t.db).remember('ff'.repeat(32), 'expires-far', 2 ** 52);
    // The signing key history: a key that signed zweite's first snapshot, then the test app's.
    const old = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    snapshotsRepo(t.db).recordSigningKey({ fingerprint: 'f'.repeat(64), publicKey: old, starts: '{}' });
    snapshotsRepo(t.db).recordSigningKey({ fingerprint: 'e'.repeat(64), publicKey: old, starts: '{"zweite":2}' });
  } finally {
    await t.close();
  }
  // What the routes cannot make: AUTOINCREMENT counters above every number in use (as after a
  // deletion whose deleted_runs row went with its competition).
  const db = new Database(path);
  db.prepare(`UPDATE sqlite_sequence SET seq = seq + 17 WHERE name IN ('runs', 'audit_log')`).run();
  db.close();
}

const server = await testPostgres('test/cli/dbCopy.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe('swe-scoring db copy', () => {
  const source = file('source.db');
  let expected: Record<string, unknown[]>;
  beforeAll(async () => {
    await seedSource(source);
    expected = dumpFile(source);
  }, 120_000);

  it('has content in every table and counters above the largest numbers in use', () => {
    for (const t of TABLES) expect(expected[t]!.length, t).toBeGreaterThan(0);
    const counters = Object.fromEntries(
      (expected.sqlite_sequence as { name: string; seq: number }[]).map((r) => [r.name, r.seq]),
    );
    const maxRun = Math.max(
      ...(expected.runs as { seq: number }[]).map((r) => r.seq),
      ...(expected.deleted_runs as { deleted_seq: number }[]).map((r) => r.deleted_seq),
    );
    expect(counters.runs).toBe(maxRun + 17);
    expect(counters.audit_log).toBe(Math.max(...(expected.audit_log as { seq: number }[]).map((r) => r.seq)) + 17);
  });

  it('copies every table of the schema, a referenced table before the tables that reference it', () => {
    const order = copyTables().map((t) => t.name);
    expect([...order, 'sqlite_sequence', '__drizzle_migrations'].sort()).toEqual(TABLES);
    for (const t of Object.values(sqliteSchema).filter((x) => is(x, SQLiteTable))) {
      const config = getTableConfig(t);
      for (const fk of config.foreignKeys) {
        const target = getTableConfig(fk.reference().foreignTable).name;
        expect(order.indexOf(target), `${config.name} -> ${target}`).toBeLessThan(order.indexOf(config.name));
      }
    }
  });

  it('SQLite to SQLite: the same rows and counters, and integers past 2^53 exactly', async () => {
    const wide = file('wide.db');
    await copyDatabase({ engine: 'sqlite', path: source }, { engine: 'sqlite', path: wide });
    expectSameRows(dumpFile(wide), expected);
    // A value only a 64-bit integer holds (SQLite stores it; the app would read it rounded).
    const w = new Database(wide);
    w.prepare(`UPDATE runs SET tokens_cached_input = ? WHERE run_id = 'big'`).run(BEYOND_DOUBLE);
    w.close();
    await copyDatabase({ engine: 'sqlite', path: wide }, sqlite('wide2.db'));
    const read = (path: string) =>
      withReadOnly(path, (db) =>
        db
          .prepare('SELECT tokens_cached_input FROM runs WHERE tokens_cached_input > ?')
          .safeIntegers(true)
          .pluck()
          .all(2n ** 53n),
      );
    expect(read(file('wide2.db'))).toEqual([BEYOND_DOUBLE]);
  }, 60_000);

  describe.runIf(server.available)('with PostgreSQL', () => {
    const scratches: ScratchDatabase[] = [];
    const scratch = async (label: string) => {
      const s = await createScratchDatabase(label);
      scratches.push(s);
      return s;
    };
    afterAll(async () => {
      for (const s of scratches) await s.drop();
    });
    const pgCounts = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const counts: Record<string, number> = {};
        for (const t of [...copyTables().map((x) => x.name), 'competition_versions']) {
          counts[t] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${t}"`)).rows[0]!.n);
        }
        return counts;
      } finally {
        await client.end();
      }
    };
    const withPg = async <T>(url: string, fn: (c: pg.Client) => Promise<T>) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    };

    let copied: ScratchDatabase;
    beforeAll(async () => {
      copied = await scratch('db_copy');
    });

    it('into PostgreSQL through the command line: per-table counts printed, the same counts stored', async () => {
      const res = await cli('db', ['copy', '--from', source, '--to', copied.url]);
      expect(res.stderr).toContain('copying');
      expect(res.code, res.stderr).toBe(0);
      const printed = Object.fromEntries(
        [...res.stdout.matchAll(/^(\w+)\s+([\d,]+)\s+[\d.]+$/gm)].map((m) => [m[1], Number(m[2]!.replace(/,/g, ''))]),
      );
      const stored = await pgCounts(copied.url);
      for (const t of copyTables().map((x) => x.name)) {
        expect(printed[t], t).toBe(expected[t]!.length);
        expect(stored[t], t).toBe(expected[t]!.length);
      }
      expect(res.stdout).toMatch(/copied [\d,]+ rows in [\d.]+ s; counts checked/);
      // PostgreSQL only: one version row per competition, at 1.
      expect(
        await withPg(
          copied.url,
          async (c) => (await c.query('SELECT competition_id, version FROM competition_versions ORDER BY 1')).rows,
        ),
      ).toEqual([
        { competition_id: 'demo', version: '1' },
        { competition_id: 'zweite', version: '1' },
      ]);
    }, 60_000);

    it('keeps PostgreSQL types and sequences: booleans, doubles, JSON bytes, the next numbers past the counters', async () => {
      const counters = Object.fromEntries(
        (expected.sqlite_sequence as { name: string; seq: number }[]).map((r) => [r.name, r.seq]),
      );
      await withPg(copied.url, async (c) => {
        const run = (await c.query(`SELECT * FROM runs WHERE run_id = 'big'`)).rows[0];
        const lite = (expected.runs as Record<string, unknown>[]).find((r) => r.run_id === 'big')!;
        expect(run).toMatchObject({
          resolved: true,
          tokens_input: String(Number.MAX_SAFE_INTEGER),
          time_taken_seconds: 0.1 + 0.2,
          seq: String(lite.seq),
          grading: lite.grading,
        });
        const competition = (await c.query(`SELECT * FROM competitions WHERE id = 'zweite'`)).rows[0];
        expect(competition).toMatchObject({
          reveal_answers: true,
          weight_input: 0.1 + 0.2,
          weight_cached_input: 1e-300,
        });
        // The next number each sequence hands out is the SQLite counter + 1, as SQLite would.
        await c.query('BEGIN');
        for (const name of ['runs', 'audit_log']) {
          const next = await c.query<{ n: string }>(`SELECT nextval(pg_get_serial_sequence($1, 'seq')) AS n`, [name]);
          expect(Number(next.rows[0]!.n), name).toBe(counters[name]! + 1);
        }
        await c.query('ROLLBACK'); // nextval is not rolled back: this database is only read from now on
      });
    });

    it('back from PostgreSQL into a new SQLite file: every row and both counters exactly', async () => {
      // The counters above moved by one (nextval); copy from a second PostgreSQL copy instead.
      const again = await scratch('db_copy_again');
      await copyDatabase({ engine: 'sqlite', path: source }, { engine: 'postgres', url: again.url });
      const back = file('back.db');
      const res = await cli('db', ['copy', '--from', again.url, '--to', back]);
      expect(res.code, res.stderr).toBe(0);
      expectSameRows(dumpFile(back), expected);
      // PostgreSQL to PostgreSQL too, and back once more.
      const third = await scratch('db_copy_third');
      await copyDatabase({ engine: 'postgres', url: again.url }, { engine: 'postgres', url: third.url });
      await copyDatabase({ engine: 'postgres', url: third.url }, sqlite('back2.db'));
      expectSameRows(dumpFile(file('back2.db')), expected);
    }, 120_000);

    it('refuses a target that holds rows, naming the table, and leaves it as it was', async () => {
      const before = await pgCounts(copied.url);
      const res = await cli('db', ['copy', '--from', source, '--to', copied.url]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/is not empty: table \w+ holds rows/);
      expect(await pgCounts(copied.url)).toEqual(before);
      // A SQLite target with one row in one table.
      const one = openDatabase(file('one.db'));
      noncesRepo(one).remember('aa', 'only-row', 1);
      one.$client.close();
      const refused = await cli('db', ['copy', '--from', copied.url, '--to', file('one.db')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('table signature_nonces holds rows');
    }, 60_000);

    it('all or nothing: a row PostgreSQL refuses part way leaves the target empty', async () => {
      // A token count past 2^53 - 1 (SQLite stores it; the PostgreSQL CHECK refuses it) in a late table.
      const bad = file('bad.db');
      await copyDatabase({ engine: 'sqlite', path: source }, { engine: 'sqlite', path: bad });
      const b = new Database(bad);
      b.prepare(`UPDATE runs SET tokens_output = ? WHERE run_id = 'big'`).run(BEYOND_DOUBLE);
      b.close();
      const target = await scratch('db_copy_bad');
      const res = await cli('db', ['copy', '--from', bad, '--to', target.url]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/runs_tokens_exact.*nothing was written/);
      const counts = await pgCounts(target.url);
      expect(
        Object.values(counts).every((n) => n === 0),
        JSON.stringify(counts),
      ).toBe(true);
    }, 60_000);

    it('reads its source in one snapshot: writes made during the copy stay out, from SQLite and from PostgreSQL', async () => {
      // SQLite source: another connection writes while the copy is on its way.
      const live = file('live.db');
      await copyDatabase({ engine: 'sqlite', path: source }, { engine: 'sqlite', path: live });
      const target = await scratch('db_copy_live');
      const writer = new Database(live);
      let wrote = false;
      await copyDatabase({ engine: 'sqlite', path: live }, { engine: 'postgres', url: target.url }, (p) => {
        if (wrote || p.table !== 'competitions') return;
        wrote = true;
        writer.exec(`INSERT INTO audit_log (actor_kind, action, target, summary) VALUES ('admin', 'late', 'x', '{}')`);
        writer.exec(`DELETE FROM signature_nonces`);
        writer.exec(`UPDATE runs SET resolved = 1 - resolved`);
      });
      writer.close();
      expect(wrote).toBe(true);
      await copyDatabase({ engine: 'postgres', url: target.url }, sqlite('live-back.db'));
      expectSameRows(dumpFile(file('live-back.db')), expected);

      // PostgreSQL source: likewise through another connection.
      const target2 = await scratch('db_copy_live2');
      let wrotePg = false;
      await withPg(target.url, async (c) => {
        await copyDatabase(
          { engine: 'postgres', url: target.url },
          { engine: 'postgres', url: target2.url },
          async (p) => {
            if (wrotePg || p.table !== 'competitions') return;
            wrotePg = true;
            // Committed before the copy reads on (the copy waits for this callback).
            await c.query(`UPDATE runs SET resolved = NOT resolved; DELETE FROM signature_nonces`);
            // The copy's connections say whose they are, as the server's do (docs/POSTGRES.md).
            const { rows } = await c.query<{ db: string; name: string }>(
              `SELECT datname AS db, application_name AS name FROM pg_stat_activity
                WHERE datname IN ($1, $2) AND pid <> pg_backend_pid() ORDER BY datname`,
              [new URL(target.url).pathname.slice(1), new URL(target2.url).pathname.slice(1)],
            );
            expect(rows.map((r) => r.name)).toEqual([
              `swe-scoring copy ${hostname().split('.')[0]}:${process.pid}`,
              `swe-scoring copy ${hostname().split('.')[0]}:${process.pid}`,
            ]);
            await c.query(`INSERT INTO competition_versions VALUES ('late', 1)`);
          },
        );
      });
      expect(wrotePg).toBe(true);
      await copyDatabase({ engine: 'postgres', url: target2.url }, sqlite('live-back2.db'));
      expectSameRows(dumpFile(file('live-back2.db')), expected);
    }, 120_000);
  });

  it('says what is wrong on a wrong command line or an unusable source', async () => {
    const help = await cli('db', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: swe-scoring db copy --from SOURCE --to TARGET/);
    const missing = await cli('db', ['copy', '--from', source]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--to TARGET');
    const unknown = await cli('db', ['move']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown db subcommand move');
    const same = await cli('db', ['copy', '--from', source, '--to', `${dir.dir}/./source.db`]);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('the same database');
    const none = await cli('db', ['copy', '--from', file('nothing.db'), '--to', file('x.db')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no SQLite database at');
    const listed = await cli('--help', []);
    expect(listed.stdout).toMatch(/^ {2}db +copy a whole database/m);
  }, 60_000);
});
