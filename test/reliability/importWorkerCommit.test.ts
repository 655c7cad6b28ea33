// Task imports into a database file commit on the import worker's own connection (src/services/
// importTasks.ts): they store exactly what the main-thread commit (a ':memory:' database) stores,
// all or nothing, while the main thread keeps answering; writes wait at the write gate meanwhile,
// and reads after the answer see the import.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/client/sign.js';
import { ALICE } from '../signatures/fixtures.js';
import { dumpAll, tableRows } from '../support/dbDump.js';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

const JSONL = readFileSync(fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url)), 'utf8');
const ROWS = JSONL.trimEnd().split('\n');
const K6 = '6905333b74f22949d97baa22'; // a row of the fixture; the 114th
const NDJSON = { ...admin, 'content-type': 'application/x-ndjson' };

/** The fixture with `edit` applied to each row (given its 1-based number), plus `extra` rows. */
function fileOf(edit: (row: Record<string, unknown>, n: number) => void = () => {}, extra: string[] = []): string {
  const rows = ROWS.map((line, i) => {
    const r = JSON.parse(line) as Record<string, unknown>;
    edit(r, i + 1);
    return JSON.stringify(r);
  });
  return `${[...rows, ...extra].join('\n')}\n`;
}
/** Copies of the K6 row under new task ids (same rubric, so the same votes grade them). */
const k6Copies = (ids: string[]) =>
  ids.map((id) => {
    const r = JSON.parse(ROWS.find((l) => l.includes(K6))!) as Record<string, unknown>;
    return JSON.stringify({ ...r, task_id: id });
  });
const NEW_IDS = ['a00000000000000000000001', 'a00000000000000000000002', 'a00000000000000000000003'];

const apps: TestApp[] = [];
const dirs = tempDir('import-worker');
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});
afterAll(() => {
  dirs.remove();
  removeTempDirs();
});

let files = 0;
async function appOn(kind: 'memory' | 'file'): Promise<{ t: TestApp; path: string | null }> {
  const path = kind === 'file' ? `${dirs.dir}/db-${files++}.sqlite` : null;
  const t = await testApp(path ? { path } : {});
  apps.push(t);
  await seedCompetition(t, 'c');
  return { t, path };
}

const importJsonl = (t: TestApp, body: string, query = '') =>
  t.call({ method: 'POST', url: `/v1/competitions/c/tasks/import${query}`, headers: NDJSON, payload: body });
async function importInSession(t: TestApp, body: string, options: Record<string, string>) {
  const base = '/v1/competitions/c/tasks/imports';
  const open = await t.call({ method: 'POST', url: base, headers: admin, payload: { format: 'jsonl', ...options } });
  const sid = open.body.sessionId as string;
  const chunk = await t.call({
    method: 'PUT',
    url: `${base}/${sid}/chunks/0`,
    headers: { ...admin, 'content-type': 'application/octet-stream' },
    payload: Buffer.from(body),
  });
  expect(chunk.status).toBe(200);
  return t.call({ method: 'POST', url: `${base}/${sid}/commit`, headers: admin });
}
const taskDetail = (t: TestApp, id: string) =>
  t.call({ method: 'GET', url: `/v1/competitions/c/tasks/${id}`, headers: admin });
const taskCount = async (t: TestApp) =>
  ((await t.call({ method: 'GET', url: '/v1/competitions/c/tasks' })).body.tasks as unknown[]).length;
const votesOn = (criteria: { id: string; type: string }[]) =>
  criteria.map((c) => ({
    criterionId: c.id,
    votes: Array(5).fill({ verdict: c.type === 'positive' ? 'YES' : 'NO' }),
  }));
/** A baseline run (or a miner's) on `taskId` voting every criterion of the K6 rubric as its polarity asks. */
async function postRun(
  t: TestApp,
  runId: string,
  taskId: string,
  votesFrom: { id: string; type: string }[],
  miner?: string,
) {
  const rubricVotes = votesOn(votesFrom);
  return t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: admin,
    payload: {
      runs: [
        miner
          ? { runId, taskId, kind: 'miner', minerHotkey: miner, rubricVotes }
          : { runId, taskId, kind: 'baseline', rubricVotes },
      ],
    },
  });
}

/** What an import stores: tasks, rubrics, run counts, and the import's audit entries (without their time). */
function stored(t: TestApp) {
  const db = t.db.$client;
  return {
    tasks: tableRows(db, 'tasks'),
    criteria: tableRows(db, 'task_criteria'),
    runCounts: tableRows(db, 'task_run_counts'),
    audit: tableRows(db, 'audit_log', ['at']).filter((r) => r.action === 'tasks.import'),
  };
}

/** One history of imports: new tasks, a run, then updates, re-imports and a session commit. */
async function history(t: TestApp) {
  const answers: unknown[] = [];
  const ok = (res: { status: number; body: unknown }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    answers.push(res.body);
  };
  ok(await importJsonl(t, JSONL, '?complexity=long'));
  const k6 = (await taskDetail(t, K6)).body.criteria as { id: string; type: string }[];
  expect((await postRun(t, 'r1', K6, k6)).status).toBe(200);
  const edited = fileOf((r, n) => {
    if (n <= 5) r.prompt = `${r.prompt as string} (edited)`;
  }, k6Copies(NEW_IDS));
  const session = await importInSession(t, edited, { stage: 'screener_1' });
  expect(session.body.sessionId).toEqual(expect.any(String));
  ok({ ...session, body: { ...session.body, sessionId: undefined } });
  ok(await importJsonl(t, edited));
  ok(
    await importJsonl(
      t,
      fileOf((r, n) => n === 2 && (r.prompt = 'reworded again'), k6Copies(NEW_IDS)),
    ),
  );
  return answers;
}

// The import worker's own connection is a SQLite feature; on PostgreSQL the commit is an ordinary
// transaction that never holds the event loop (src/services/importTasks.ts).
describe.skipIf(TEST_ENGINE === 'postgres')('an import into a database file commits on the import worker', () => {
  it('stores exactly what the main-thread commit stores: tasks, rubrics, counts and audit entries', async () => {
    const memory = await appOn('memory');
    const file = await appOn('file');
    const expected = await history(memory.t);
    expect(expected).toEqual([
      { imported: 124, updated: 0, unchanged: 0 },
      { imported: 3, updated: 124, unchanged: 0 },
      { imported: 0, updated: 0, unchanged: 127 },
      { imported: 0, updated: 5, unchanged: 122 },
    ]);
    expect(await history(file.t)).toEqual(expected);
    const want = stored(memory.t);
    expect(want.criteria.length).toBeGreaterThan(1306);
    expect(want.audit).toHaveLength(3); // the unchanged re-import leaves none
    expect(stored(file.t)).toEqual(want);
  });

  it("the first read after the answer sees the import: the worker's write events reach the caches", async () => {
    const { t } = await appOn('file');
    expect((await importJsonl(t, JSONL)).status).toBe(200);
    const k6 = (await taskDetail(t, K6)).body.criteria as { id: string; type: string }[];
    expect((await postRun(t, 'r1', K6, k6, 'miner-1')).status).toBe(200);
    // Score reads, their bodies now cached.
    expect((await taskDetail(t, K6)).body.stage).toBe('evaluation');
    const runsCounted = async () =>
      ((await t.call({ url: '/v1/competitions/c/leaderboard' })).body.miners as { runs: number }[])[0]!.runs;
    expect(await runsCounted()).toBe(1);
    // screener_1 is not among the final stages: the miner's run no longer counts.
    expect((await importJsonl(t, JSONL, '?stage=screener_1')).body).toEqual({
      imported: 0,
      updated: 124,
      unchanged: 0,
    });
    expect((await taskDetail(t, K6)).body.stage).toBe('screener_1');
    expect(await runsCounted()).toBe(0);
  });

  it('stores nothing when the commit fails: a rubric change on tasks with runs is the same 409, naming them all', async () => {
    // K1 and K6 are far apart in the file (rows 1 and 114): the worker stores a file a batch of
    // rows at a time, the main thread all at once; both 409s name both tasks.
    const K1 = (JSON.parse(ROWS[0]!) as { task_id: string }).task_id;
    const answers = [];
    for (const kind of ['memory', 'file'] as const) {
      const { t } = await appOn(kind);
      expect((await importJsonl(t, JSONL)).status).toBe(200);
      for (const [n, id] of [K6, K1].entries()) {
        const criteria = (await taskDetail(t, id)).body.criteria as { id: string; type: string }[];
        expect((await postRun(t, `r${n}`, id, criteria)).status).toBe(200);
      }
      const before = dumpAll(t.db.$client);
      const changed = fileOf((r) => {
        if (r.task_id !== K6 && r.task_id !== K1) return;
        const rubric = JSON.parse(r.rubric as string) as { title: string }[];
        rubric[0]!.title += ' (reworded)';
        r.rubric = JSON.stringify(rubric);
      }, k6Copies(NEW_IDS));
      const res = await importJsonl(t, changed, '?stage=screener_2');
      expect(res.status).toBe(409);
      expect(dumpAll(t.db.$client)).toBe(before); // not the new tasks, not the other stages
      const named = (res.body.errors as { path: string }[]).map((e) => e.path);
      expect(named.sort()).toEqual([`tasks/${K1}`, `tasks/${K6}`].sort());
      answers.push(res.body);
    }
    expect(answers[1]).toEqual(answers[0]);
  });

  it('stores nothing when the worker fails mid-commit, answers a 500, and keeps serving', async () => {
    const { t, path } = await appOn('file');
    expect((await importJsonl(t, JSONL)).status).toBe(200);
    const before = dumpAll(t.db.$client);
    // A storage failure inside the worker's transaction, after the tasks rows are written.
    const other = new Database(path!);
    other.exec(`CREATE TRIGGER fail BEFORE INSERT ON task_criteria BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`);
    const res = await importJsonl(
      t,
      fileOf(() => {}, k6Copies(NEW_IDS)),
    );
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(dumpAll(t.db.$client)).toBe(before);
    other.exec('DROP TRIGGER fail');
    other.close();
    expect(await taskCount(t)).toBe(124);
    expect(
      (
        await importJsonl(
          t,
          fileOf(() => {}, k6Copies(NEW_IDS)),
        )
      ).body,
    ).toEqual({
      imported: 3,
      updated: 0,
      unchanged: 124,
    });
  });
});

describe.skipIf(TEST_ENGINE === 'postgres')('while the worker commits', () => {
  const metric = async (t: TestApp, name: string) =>
    Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await t.call({ url: '/metrics' })).body as string)?.[1]);
  async function until(what: string, test: () => Promise<boolean>) {
    const deadline = Date.now() + 20_000;
    while (!(await test())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const settled = <T>(p: Promise<T>) => {
    const s = { done: false, value: p };
    void p.then(() => (s.done = true));
    return s;
  };

  it('reads are answered with the state before the import, writes wait and then succeed, and reads after the answer see the import', async () => {
    const { t, path } = await appOn('file');
    expect((await importJsonl(t, JSONL)).status).toBe(200);
    const k6 = (await taskDetail(t, K6)).body.criteria as { id: string; type: string }[];
    expect((await taskDetail(t, K6)).body.stage).toBe('evaluation'); // a cached score-read body
    const alice = ALICE;
    const registered = await t.call({
      method: 'POST',
      url: '/v1/validators',
      headers: admin,
      payload: { name: 'alice', hotkey: alice.address },
    });
    expect(registered.status).toBe(201);

    // Another connection holds SQLite's write lock, so the worker's commit, once begun, stays in
    // progress (waiting within busy_timeout) until this test lets go: no timing guesswork.
    const blocker = new Database(path!);
    blocker.exec('BEGIN IMMEDIATE');
    const importing = settled(
      importJsonl(
        t,
        fileOf(() => {}, k6Copies(NEW_IDS)),
        '?stage=screener_2',
      ),
    );
    await until('the import holds the write gate', async () => (await metric(t, 'scoring_import_committing')) === 1);

    // Reads answer (the event loop is free) with the state before the import.
    const during = await taskDetail(t, K6);
    expect(during.status).toBe(200);
    expect(during.body.stage).toBe('evaluation');
    expect((await t.call({ url: '/v1/competitions/c/leaderboard' })).status).toBe(200);
    expect(await taskCount(t)).toBe(124);
    expect((await taskDetail(t, NEW_IDS[0]!)).status).toBe(404);

    // Writes wait at the gate: a run on a task the import is adding, and a signed one (whose
    // nonce is a write of its own, before the handler).
    const posting = settled(postRun(t, 'r-new', NEW_IDS[0]!, k6));
    const body = JSON.stringify({
      runs: [{ runId: 'r-signed', taskId: NEW_IDS[1], kind: 'miner', minerHotkey: 'm1', rubricVotes: votesOn(k6) }],
    });
    const headers = {
      'content-type': 'application/json',
      ...signRequest({ key: alice, body, signedFor: t.serverHotkey }),
    };
    const signing = settled(t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers, payload: body }));
    await until('both runs wait at the gate', async () => (await metric(t, 'scoring_writes_waiting')) === 2);
    expect(importing.done || posting.done || signing.done).toBe(false);

    blocker.exec('ROLLBACK');
    blocker.close();
    const imported = await importing.value;
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toEqual({ imported: 3, updated: 124, unchanged: 0 });
    const run = await posting.value;
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toEqual({ accepted: 1, duplicates: 0 });
    const signed = await signing.value;
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body).toEqual({ accepted: 1, duplicates: 0 });

    // After the answer: the imported tasks, and score reads computed from them.
    expect(await taskCount(t)).toBe(127);
    expect((await taskDetail(t, K6)).body.stage).toBe('screener_2');
    const added = await taskDetail(t, NEW_IDS[0]!);
    expect(added.status).toBe(200);
    expect(added.body.baseline.runs).toBe(1);
    expect(await metric(t, 'scoring_import_committing')).toBe(0);
  });
});
