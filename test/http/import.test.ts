// POST .../tasks/import with the real SWE-Atlas-QnA files (written by neither this project nor
// its tests), and with broken copies of them made here.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const DATA = new URL('../../fixtures/swe-atlas-qna/', import.meta.url);
const PARQUET = readFileSync(new URL('test-00000-of-00001.parquet', DATA));
const JSONL = readFileSync(new URL('tasks.jsonl', DATA), 'utf8');
const K6 = '6905333b74f22949d97baa22'; // grafana/k6: the two scale-corrected criteria
const TYPES = { parquet: 'application/vnd.apache.parquet', jsonl: 'application/x-ndjson' };

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
});
afterEach(async () => t.close());

const importFile = (body: Buffer | string, format: keyof typeof TYPES, query = '', c = 'c') =>
  t.call({
    method: 'POST',
    url: `/v1/competitions/${c}/tasks/import${query}`,
    headers: { ...admin, 'content-type': TYPES[format] },
    payload: body,
  });
const listTasks = async (c = 'c') =>
  (await t.call({ method: 'GET', url: `/v1/competitions/${c}/tasks` })).body.tasks as {
    id: string;
    stage: string;
    complexity: string | null;
    criteriaCount: number;
  }[];
const taskView = async (id: string, c = 'c') =>
  (await t.call({ method: 'GET', url: `/v1/competitions/${c}/tasks/${id}`, headers: admin })).body;

/** Every row of every table: equal dumps mean nothing was stored. */
const dump = () => t.dump();

/** The JSONL file with one row (1-based) changed. */
function editRow(row: number, edit: (r: Record<string, unknown>) => void): string {
  const lines = JSONL.trimEnd().split('\n');
  const r = JSON.parse(lines[row - 1]!);
  edit(r);
  lines[row - 1] = JSON.stringify(r);
  return `${lines.join('\n')}\n`;
}

describe('QnA import of the real task set', () => {
  it('imports the Parquet file: 124 tasks, 1,306 criteria, 1,220 positive, 86 negative, two scale corrections in the k6 task', async () => {
    const res = await importFile(PARQUET, 'parquet');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 124, updated: 0, unchanged: 0 });

    const tasks = await listTasks();
    expect(tasks).toHaveLength(124);
    expect(tasks.reduce((sum, x) => sum + x.criteriaCount, 0)).toBe(1306);
    expect(tasks.every((x) => x.stage === 'evaluation' && x.complexity === null)).toBe(true);

    const types = { positive: 0, negative: 0 };
    const corrections: string[] = [];
    for (const { id } of tasks) {
      const view = await taskView(id);
      expect(view.type).toBe('swe_atlas_qna');
      for (const c of view.criteria as { type: 'positive' | 'negative'; change: string | null }[]) {
        types[c.type]++;
        if (c.change === 'scale-correction') corrections.push(`${id}:${c.type}`);
      }
    }
    expect(types).toEqual({ positive: 1220, negative: 86 });
    expect(corrections).toEqual([`${K6}:negative`, `${K6}:negative`]);
  });

  it('JSON Lines gives the same tasks, with ?stage= and ?complexity= applied to every row', async () => {
    await importFile(PARQUET, 'parquet');
    await seedCompetition(t, 'j');
    const res = await importFile(JSONL, 'jsonl', '?stage=screener_2&complexity=%20Long', 'j');
    expect(res.body).toEqual({ imported: 124, updated: 0, unchanged: 0 });
    const tasks = await listTasks('j');
    expect(tasks.every((x) => x.stage === 'screener_2' && x.complexity === 'long')).toBe(true);
    for (const id of [tasks[0]!.id, K6, tasks[123]!.id]) {
      const [p, j] = [await taskView(id), await taskView(id, 'j')];
      expect(j.qna).toEqual(p.qna);
      expect(j.criteria).toEqual(p.criteria);
    }
  });

  it('re-importing the same file changes nothing', async () => {
    await importFile(PARQUET, 'parquet');
    const before = await dump();
    expect((await importFile(PARQUET, 'parquet')).body).toEqual({ imported: 0, updated: 0, unchanged: 124 });
    expect((await importFile(JSONL, 'jsonl')).body).toEqual({ imported: 0, updated: 0, unchanged: 124 });
    expect(await dump()).toBe(before);
  });

  it('a changed rubric for a task that already has runs is a 409 and changes nothing', async () => {
    await importFile(JSONL, 'jsonl');
    const criteria = (await taskView(K6)).criteria as { id: string; type: string }[];
    const votes = criteria.map((c) => ({
      criterionId: c.id,
      votes: Array(5).fill({ verdict: c.type === 'positive' ? 'YES' : 'NO' }),
    }));
    const run = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: [{ runId: 'r1', taskId: K6, kind: 'baseline', rubricVotes: votes }] },
    });
    expect(run.body).toEqual({ accepted: 1, duplicates: 0 });

    const before = await dump();
    const changed = editRow(114, (r) => {
      const rubric = JSON.parse(r.rubric as string);
      rubric[0].title = `${rubric[0].title} (reworded)`;
      r.rubric = JSON.stringify(rubric);
    });
    const res = await importFile(changed, 'jsonl', '?stage=screener_1');
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(K6);
    expect(await dump()).toBe(before); // not even the stage of the other 123 tasks
  });

  const brokenCopies: [string, () => [Buffer | string, keyof typeof TYPES], RegExp][] = [
    [
      'a truncated Parquet file',
      () => [PARQUET.subarray(0, Math.floor(PARQUET.length / 2)), 'parquet'],
      /stored: file: not a readable Parquet/,
    ],
    [
      'a row whose rubric is not JSON',
      () => [
        editRow(7, (r) => {
          r.rubric = '[{"id": "abc",';
        }),
        'jsonl',
      ],
      /row 7\/rubric/,
    ],
    [
      'a duplicated criterion id',
      () => [
        editRow(12, (r) => {
          const rubric = JSON.parse(r.rubric as string);
          rubric[1].id = rubric[0].id;
          r.rubric = JSON.stringify(rubric);
        }),
        'jsonl',
      ],
      /row 12\/rubric\[1\]\.id/,
    ],
    [
      'a bad commit hash',
      () => [
        editRow(30, (r) => {
          r.repository_base_commit = 'not-a-sha';
        }),
        'jsonl',
      ],
      /row 30\/repository_base_commit/,
    ],
  ];

  it.each(brokenCopies)(
    'rejects %s with a 400 naming the row (or the file), storing nothing',
    async (_name, make, where) => {
      await importFile(PARQUET, 'parquet', '?stage=screener_1'); // something stored, so "unchanged" means something
      const before = await dump();
      const [body, format] = make();
      const res = await importFile(body, format);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/nothing stored/);
      expect(res.body.detail).toMatch(where);
      expect(await dump()).toBe(before);
    },
  );
});

it('an empty file is a 400 naming the body (it was a 415, as if the type were wrong), storing nothing', async () => {
  for (const format of ['jsonl', 'parquet'] as const) {
    const res = await importFile('', format);
    expect(res.status, format).toBe(400);
    expect(res.body.detail).toMatch(/the file is empty, nothing stored/);
    expect(res.body.errors).toEqual([{ path: 'body', message: 'is empty' }]);
  }
  expect(await listTasks()).toEqual([]);
});

describe('an upload is written to disk as it arrives', () => {
  it('the first half of a slow upload is on disk before the rest is sent, and the import then succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-spool-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir; // where the server spools uploads (os.tmpdir() reads it each call)
    try {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const bytes = Buffer.from(JSONL, 'utf8');
      const half = Math.floor(bytes.length / 2);
      const url = new URL('/v1/competitions/c/tasks/import', address);
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { ...admin, 'content-type': TYPES.jsonl } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write(bytes.subarray(0, half));
        // The rest only once the first half is in the spool file: a server that gathered the body
        // into one buffer first would never write it, and this would time out.
        const spooled = () => {
          const sub = readdirSync(dir).find((d) => d.startsWith('swe-scoring-import-'));
          const file = sub && join(dir, sub, 'upload.jsonl');
          return file !== undefined && existsSync(file) ? statSync(file).size : 0;
        };
        const started = Date.now();
        const poll = setInterval(() => {
          if (spooled() >= half) {
            clearInterval(poll);
            req.end(bytes.subarray(half));
          } else if (Date.now() - started > 10_000) {
            clearInterval(poll);
            req.destroy();
            reject(new Error(`after 10 s, ${spooled()} of the first ${half} bytes were on disk`));
          }
        }, 20);
      });
      const { status, body } = await answer;
      expect(status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ imported: 124 });
      expect(await listTasks()).toHaveLength(124);
      // The spool is removed once the import is done.
      expect(readdirSync(dir).filter((d) => d.startsWith('swe-scoring-import-'))).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
