// SQLite and PostgreSQL give the same answers (issue 15): the same competition posted to an app on
// each engine reads back as the same JSON, byte for byte, for every score read, on random
// competitions and on the demo competition; and a SQLite database copied into PostgreSQL reads
// exactly as it did. It builds one app on each engine itself, so it runs
// once, in the SQLite projects.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { copyDatabase } from '../../src/tools/copy/index.js';
import { openPostgresStore } from '../../src/db/pg/open.js';
import { admin, ADMIN_TOKEN, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';
import { createScratchDatabase, testPostgres } from '../support/postgres.js';
import { postCompetition, randomCompetition } from '../snapshots/randomCompetition.js';
import { seed, COMPETITION } from '../../src/cli/commands/demo.js';

const server = TEST_ENGINE === 'sqlite' ? await testPostgres('test/http/enginesAgree.test.ts') : null;

it.runIf(server?.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server!.notice));

/** Every score read of competition `id` with its body as text; the same list on both engines. */
async function reads(t: TestApp, id: string): Promise<Record<string, string>> {
  const base = `/v1/competitions/${id}`;
  const get = async (url: string) => {
    const res = await t.app.inject({ url });
    return `${res.statusCode} ${res.body}`;
  };
  const board = JSON.parse((await t.app.inject({ url: `${base}/leaderboard` })).body) as {
    miners: { hotkey: string }[];
  };
  const tasks = JSON.parse((await t.app.inject({ url: `${base}/tasks` })).body) as { tasks: { id: string }[] };
  const out: Record<string, string> = {};
  const urls = [
    base,
    `${base}/leaderboard`,
    `${base}/leaderboard?limit=2&offset=1`,
    `${base}/weights`,
    `${base}/criteria/report`,
    `${base}/tasks`,
    `${base}/validators`,
    `${base}/runs?limit=1000`,
    ...board.miners.slice(0, 5).map((m) => `${base}/miners/${m.hotkey}`),
    ...tasks.tasks.slice(0, 5).map((x) => `${base}/tasks/${x.id}`),
  ];
  for (const url of urls) out[url] = await get(url);
  return out;
}

/** Timestamps and generated ids differ between two apps by nature; everything else must not. */
const comparable = (body: string) =>
  body
    .replace(/"(createdAt|updatedAt|takenAt|at)":"[^"]*"/g, '"$1":"…"')
    .replace(/"validatorId":"[^"]*"/g, '"validatorId":"…"')
    .replace(/"id":"[0-9a-f]{32}"/g, '"id":"…"');

/** Two apps, one on each engine, each fresh. */
async function apps(): Promise<[TestApp, TestApp]> {
  return Promise.all([testApp({ engine: 'sqlite' }), testApp({ engine: 'postgres' })]);
}

describe.runIf(server?.available)('SQLite and PostgreSQL answer alike', () => {
  const dir = tempDir('engines-agree');
  afterAll(() => dir.remove());

  /**
   * The demo competition seeded once on SQLite, as a database file: each test opens a copy of its
   * own. Seeded in memory (no fsync per write) and written out whole.
   */
  let seeded: Promise<string> | undefined;
  const demoFile = () =>
    (seeded ??= (async () => {
      const file = join(dir.dir, 'demo.db');
      const t = await testApp({ engine: 'sqlite' });
      try {
        await seed(t.app, ADMIN_TOKEN, () => {});
        t.db.$client.exec(`VACUUM INTO '${file}'`);
      } finally {
        await t.close();
      }
      return file;
    })());
  const demoCopy = async (name: string) => {
    const file = join(dir.dir, name);
    copyFileSync(await demoFile(), file);
    return file;
  };

  it('on random competitions: every score read, byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(randomCompetition, async (c) => {
        const [lite, post] = await apps();
        try {
          // The engines side by side: PostgreSQL mostly waits on its server meanwhile.
          await Promise.all([postCompetition(lite, c), postCompetition(post, c)]);
          const [a, b] = await Promise.all([reads(lite, 'c'), reads(post, 'c')]);
          expect(Object.keys(b)).toEqual(Object.keys(a));
          for (const url of Object.keys(a)) expect(comparable(b[url]!), url).toBe(comparable(a[url]!));
        } finally {
          await Promise.all([lite.close(), post.close()]);
        }
      }),
      { numRuns: 6 },
    );
  }, 180_000);

  it('a SQLite database copied into PostgreSQL (swe-scoring db copy) reads the same, ids and times included', async () => {
    const [file, target] = await Promise.all([demoCopy('source.db'), createScratchDatabase('engines_copy')]);
    const source = await testApp({ engine: 'sqlite', path: file });
    const run = JSON.parse((await source.app.inject({ url: `/v1/competitions/${COMPETITION}/runs?limit=1` })).body) as {
      runs: { runId: string }[];
    };
    await source.call({
      method: 'DELETE',
      url: `/v1/competitions/${COMPETITION}/runs/${run.runs[0]!.runId}`,
      headers: admin,
    });
    const expected = await reads(source, COMPETITION);
    await source.close();

    await copyDatabase({ engine: 'sqlite', path: file }, { engine: 'postgres', url: target.url });
    const store = await openPostgresStore(target.url, { max: 2 });
    const app = await buildApp({ store, adminToken: ADMIN_TOKEN });
    try {
      const copied = await reads({ app } as TestApp, COMPETITION);
      expect(Object.keys(copied)).toEqual(Object.keys(expected));
      for (const url of Object.keys(expected)) expect(copied[url], url).toBe(expected[url]);
    } finally {
      await app.close();
      await store.close();
      await target.drop();
    }
  }, 180_000);

  it('on the demo competition (QnA rubrics, votes, validators, snapshots)', async () => {
    const post = await testApp({ engine: 'postgres' });
    let lite: TestApp | undefined;
    try {
      // Seeded through PostgreSQL's app while the SQLite copy is made (or was, by the test above).
      const [file] = await Promise.all([demoCopy('demo-read.db'), seed(post.app, ADMIN_TOKEN, () => {})]);
      lite = await testApp({ engine: 'sqlite', path: file });
      const [a, b] = await Promise.all([reads(lite, COMPETITION), reads(post, COMPETITION)]);
      for (const url of Object.keys(a)) expect(comparable(b[url]!), url).toBe(comparable(a[url]!));
    } finally {
      await lite?.close();
      await post.close();
    }
  }, 180_000);
});
