// SCORING_INSTANCE_LABEL on a real server process: a label that cannot name a PostgreSQL
// connection stops the start with one line saying what is accepted; on PostgreSQL, the server's
// connections show it in pg_stat_activity, each kind under its own name with the process's pid.
import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import { startServer } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

let tmp: TempDir;
beforeAll(() => void (tmp = tempDir('instance-label')));
afterAll(() => tmp?.remove());

it('refuses to start with a label that cannot name a connection, in one line', async () => {
  const refused = await startServer({
    dbPath: `${tmp.dir}/refused.db`,
    env: { SCORING_INSTANCE_LABEL: 'replica 2' },
  }).then(
    () => 'started',
    (e: Error) => e.message,
  );
  expect(refused).toMatch(/^server exited before ready \(\{"code":1/);
  expect(refused.split('\n').filter((l) => l.startsWith('swe-scoring: '))).toEqual([
    `swe-scoring: SCORING_INSTANCE_LABEL must be 1 to 20 characters of ASCII letters, digits, '.', '_' or '-' ` +
      `(it names this server's PostgreSQL connections, such as replica-2), got "replica 2"`,
  ]);
});

it.runIf(TEST_ENGINE === 'postgres')("names each of the server's connections with the label and its pid", async () => {
  const dbPath = `${tmp.dir}/labelled.db`;
  const server = await startServer({ dbPath, env: { SCORING_INSTANCE_LABEL: 'replica-7' } });
  const admin = new pg.Client({ connectionString: (await postgresDatabaseFor(dbPath)).url });
  await admin.connect();
  try {
    // A score read: a pooled connection and the version read. The notifier connects on its own
    // from the start: its session is waited for.
    expect((await fetch(`${server.baseUrl}/v1/competitions/none/leaderboard`)).status).toBe(404);
    let names: string[] = [];
    for (let i = 0; i < 200 && names.length < 3; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25));
      const { rows } = await admin.query<{ name: string }>(
        `SELECT DISTINCT application_name AS name FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY 1`,
      );
      names = rows.map((r) => r.name);
    }
    const self = `replica-7 ${hostname().split('.')[0]}:${server.pid}`;
    expect(names).toEqual([`swe-scoring listen ${self}`, `swe-scoring pool ${self}`, `swe-scoring versions ${self}`]);
  } finally {
    await admin.end();
    await server.stop();
  }
});
