// A PostgreSQL server for the suites that need one (issue 15). This machine and CI run one at
// 127.0.0.1:5432 with trust auth; PG_TEST_URL names another (any database on it: suites create
// their own and drop them). Where no server answers, a suite is skipped with a printed notice,
// except in CI (CI=true), where an unreachable server must fail the run:
//
//   const server = await testPostgres('test/db/x.test.ts');
//   it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));
//   describe.runIf(server.available)('...', () => { ... createScratchDatabase('x') ... });
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONNECT_TIMEOUT_MS = 3000;

export interface TestPostgres {
  available: boolean;
  /** Unreachable in CI: the suite must fail rather than skip. */
  mustFail: boolean;
  /** Why the suite does not run, when it does not. */
  notice: string;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Whether a server answers at PG_TEST_URL; prints the notice when the suite will be skipped. */
export async function testPostgres(suite: string): Promise<TestPostgres> {
  try {
    await withAdmin((c) => c.query('SELECT 1'));
    return { available: true, mustFail: false, notice: '' };
  } catch (err) {
    const ci = process.env.CI === 'true';
    const notice = `${suite}: no PostgreSQL server answers at ${new URL(ADMIN_URL).host} (${(err as Error).message}); ${
      ci ? 'CI=true, so this fails' : 'its PostgreSQL tests are skipped'
    }. Set PG_TEST_URL to use another server.`;
    if (!ci) console.warn(notice);
    return { available: false, mustFail: ci, notice };
  }
}

export interface ScratchDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  drop(): Promise<void>;
}

export interface ScratchOptions {
  /**
   * An ICU locale (e.g. `en-US`) for the database's default collation, where text does not sort
   * in byte order: what a server's default locale often gives, and what SQLite never does.
   */
  icuLocale?: string;
}

/** Creates an empty database `swe_test_<label>_<random>` on the test server. */
export async function createScratchDatabase(label: string, options: ScratchOptions = {}): Promise<ScratchDatabase> {
  const name = `swe_test_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  const locale = options.icuLocale;
  if (locale !== undefined && !/^[A-Za-z0-9-]+$/.test(locale)) throw new Error(`not an ICU locale: ${locale}`);
  const icu =
    locale === undefined ? '' : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${locale}' LOCALE 'C.UTF-8'`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}${icu}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The name `createScratchDatabase` would give, for a database made another way. */
export function scratchName(label: string): string {
  return `swe_test_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
}

/** Creates `swe_test_<label>_<random>` as a copy of `template` (a migrated, otherwise unused database). */
export async function copyDatabase(template: string, label: string): Promise<ScratchDatabase> {
  const name = scratchName(label);
  // CREATE DATABASE … TEMPLATE fails while another session is connected to the template.
  await withAdmin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Drops every database whose name starts with `prefix` (a test run's leftovers). */
export async function dropDatabases(prefix: string): Promise<void> {
  await withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}
