// Runs and tasks exports over HTTP: each format read back equals the stored data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { csvObjects } from '../support/csv.js';
import {
  csvRow,
  exportRow,
  listedRuns,
  ndjsonRows,
  parquetRow,
  parquetRows,
  type ListedRun,
} from '../support/exportRows.js';

const [P1, N1] = ['a'.repeat(32), 'b'.repeat(32)];
/** Text that CSV must quote, with non-ASCII characters. */
const TRICKY = 'Commas, "quotes", a CR\r, an LF\n, CRLF\r\n; unicode: é, 漢字, 🧪';
const qna = (answer: string) => ({
  prompt: `Why? ${TRICKY}`,
  referenceAnswer: answer,
  repositoryUrl: 'grafana/k6',
  repositoryBaseCommit: 'e'.repeat(40),
  language: 'go',
  category: 'Root-cause, analysis',
  dockerImage: 'img:1',
  rubric: [
    { id: P1, type: 'positive', title: 'SECRET-TITLE-1', importance: 'must have' },
    { id: N1, type: 'negative', title: `SECRET-TITLE-2 ${TRICKY}`, importance: 'must have', change: 'precision' },
  ],
});
const RUNS = 2600; // more than one page of 2,000

let t: TestApp;
let runs: ListedRun[];
beforeAll(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t, 'c');
  const put = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: {
      tasks: [
        { id: 'swe-1', type: 'swebench_verified', complexity: 'short', plannedRuns: 3 },
        { id: 'swe-2', type: 'swebench_verified', stage: 'screener_1' },
        { id: 'q', type: 'swe_atlas_qna', qna: qna(`SECRET-ANSWER ${TRICKY}`) },
      ],
    },
  });
  expect(put.body).toEqual({ imported: 3, updated: 0, unchanged: 0 });
  const vote = (id: string, yes: number) => ({
    criterionId: id,
    votes: Array.from({ length: 5 }, (_, i) => ({ verdict: i < yes ? 'YES' : 'NO' })),
  });
  const run = (i: number) => {
    const m = i % 5;
    if (m === 0)
      return {
        runId: `r${i}`,
        taskId: 'q',
        kind: 'miner',
        minerHotkey: `m${i % 7}`,
        rubricVotes: [vote(P1, i % 6), vote(N1, i % 3)],
      };
    if (m === 1)
      return {
        runId: `r${i}`,
        taskId: 'swe-1',
        kind: 'baseline',
        resolved: i % 2 === 0,
        tokens: { input: i * 1000, output: 7 },
        timeTakenSeconds: i / 7,
      };
    if (m === 2)
      return {
        runId: `r${i}`,
        taskId: 'swe-2',
        kind: 'miner',
        minerHotkey: `m${i % 7}`,
        resolved: true,
        tokens: null,
        attemptNo: i % 3,
      };
    return {
      runId: `r${i}`,
      taskId: 'swe-1',
      kind: 'miner',
      minerHotkey: `m${i % 7}`,
      resolved: false,
      agentSteps: i,
      tokens: { input: 2 ** 40 + i, cachedInput: i, output: 3 },
    };
  };
  for (let start = 0; start < RUNS; start += 1300) {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: { authorization: `Bearer ${validatorKey}` },
      payload: { runs: Array.from({ length: 1300 }, (_, k) => run(start + k)) },
    });
    expect(res.body).toEqual({ accepted: 1300, duplicates: 0 });
  }
  await t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: admin,
    payload: { runs: [{ runId: 'by-admin', taskId: 'swe-2', kind: 'baseline', resolved: true }] },
  });
  runs = await listedRuns(t, 'c');
  expect(runs.length).toBe(RUNS + 1);
});
afterAll(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('runs export', () => {
  it('NDJSON: a line per stored run, in storage order, equal to the run listing', async () => {
    const res = await get('/v1/competitions/c/runs/export?format=ndjson');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="c-runs.ndjson"');
    expect(ndjsonRows(res.body)).toEqual(runs.map(exportRow));
    expect(Number(res.headers['x-run-seq'])).toBe(runs.at(-1)!.seq);
  });

  it('NDJSON is the default format', async () => {
    expect(ndjsonRows((await get('/v1/competitions/c/runs/export')).body)).toEqual(runs.map(exportRow));
  });

  it('CSV (RFC 4180, CRLF): a header row, then every run; criteria as quoted JSON text', async () => {
    const res = await get('/v1/competitions/c/runs/export?format=csv');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.body.startsWith('seq,runId,taskId,kind,minerHotkey,validatorId,attemptNo,resolved,tokensInput,')).toBe(
      true,
    );
    expect(res.body.split('\r\n').length).toBe(runs.length + 2);
    expect(csvObjects(res.body)).toEqual(runs.map(csvRow));
  });

  it('Parquet read back with hyparquet: row count and every value of every row', async () => {
    const res = await get('/v1/competitions/c/runs/export?format=parquet');
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    const { rows, numRows } = await parquetRows(res.rawPayload);
    expect(numRows).toBe(runs.length);
    expect(rows).toEqual(runs.map(parquetRow));
    expect(rows[3]!.tokensInput).toBe(2 ** 40 + 3); // past INT32
  });

  it('an empty competition exports a header (CSV), nothing (NDJSON) and a valid empty file (Parquet)', async () => {
    await t.call({ method: 'PUT', url: '/v1/competitions/empty', headers: admin, payload: { name: 'Empty' } });
    expect((await get('/v1/competitions/empty/runs/export?format=csv')).body.split('\r\n')[1]).toBe('');
    expect((await get('/v1/competitions/empty/runs/export')).body).toBe('');
    expect(
      await parquetRows((await get('/v1/competitions/empty/runs/export?format=parquet')).rawPayload),
    ).toMatchObject({ rows: [], numRows: 0 });
  });
});

describe('tasks export', () => {
  const QNA_PUBLIC = {
    prompt: `Why? ${TRICKY}`,
    repositoryUrl: 'grafana/k6',
    repositoryBaseCommit: 'e'.repeat(40),
    language: 'go',
    category: 'Root-cause, analysis',
    dockerImage: 'img:1',
  };
  const NO_QNA = {
    prompt: null,
    repositoryUrl: null,
    repositoryBaseCommit: null,
    language: null,
    category: null,
    dockerImage: null,
  };
  const count = (taskId: string, kind?: string) =>
    runs.filter((r) => r.taskId === taskId && (!kind || r.kind === kind)).length;
  const publicTasks = () => [
    {
      id: 'q',
      type: 'swe_atlas_qna',
      stage: 'evaluation',
      complexity: null,
      plannedRuns: null,
      runCount: count('q'),
      baselineRuns: 0,
      ...QNA_PUBLIC,
      rubric: [
        { position: 0, type: 'positive', change: null },
        { position: 1, type: 'negative', change: 'precision' },
      ],
    },
    {
      id: 'swe-1',
      type: 'swebench_verified',
      stage: 'evaluation',
      complexity: 'short',
      plannedRuns: 3,
      runCount: count('swe-1'),
      baselineRuns: count('swe-1', 'baseline'),
      ...NO_QNA,
      rubric: null,
    },
    {
      id: 'swe-2',
      type: 'swebench_verified',
      stage: 'screener_1',
      complexity: null,
      plannedRuns: null,
      runCount: count('swe-2'),
      baselineRuns: count('swe-2', 'baseline'),
      ...NO_QNA,
      rubric: null,
    },
  ];

  it('public NDJSON: every task in id order, without the answer key', async () => {
    const res = await get('/v1/competitions/c/tasks/export?format=ndjson');
    expect(res.headers['content-disposition']).toBe('attachment; filename="c-tasks.ndjson"');
    expect(ndjsonRows(res.body)).toEqual(publicTasks());
    expect(res.body).not.toMatch(/SECRET|referenceAnswer|a{32}/);
  });

  it('public CSV: quoted fields keep commas, quotes, CR, LF and unicode exactly; no referenceAnswer column', async () => {
    const res = await get('/v1/competitions/c/tasks/export?format=csv');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    const rows = csvObjects(res.body);
    const text = (v: string | number | object | null) =>
      v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    expect(rows).toEqual(
      publicTasks().map((task) => Object.fromEntries(Object.entries(task).map(([k, v]) => [k, text(v)]))),
    );
    expect(rows[0]!.prompt).toBe(`Why? ${TRICKY}`);
    expect(res.body).not.toContain('SECRET');
  });

  it('the admin, or anyone once the competition reveals answers, gets the reference answer and the rubric ids and titles', async () => {
    const full = (body: string) => ndjsonRows(body)[0];
    const expected = {
      referenceAnswer: `SECRET-ANSWER ${TRICKY}`,
      rubric: [
        {
          position: 0,
          id: P1,
          title: 'SECRET-TITLE-1',
          type: 'positive',
          importance: 'must have',
          originalTitle: 'SECRET-TITLE-1',
          change: null,
        },
        {
          position: 1,
          id: N1,
          title: `SECRET-TITLE-2 ${TRICKY}`,
          type: 'negative',
          importance: 'must have',
          originalTitle: `SECRET-TITLE-2 ${TRICKY}`,
          change: 'precision',
        },
      ],
    };
    expect(full((await get('/v1/competitions/c/tasks/export', admin)).body)).toMatchObject(expected);
    const csv = csvObjects((await get('/v1/competitions/c/tasks/export?format=csv', admin)).body)[0]!;
    expect([csv.referenceAnswer, JSON.parse(csv.rubric!)]).toEqual([expected.referenceAnswer, expected.rubric]);
    expect(full((await get('/v1/competitions/c/tasks/export')).body)).not.toHaveProperty('referenceAnswer');
    expect(
      (
        await t.call({
          method: 'PUT',
          url: '/v1/competitions/c',
          headers: admin,
          payload: { name: 'Test', revealAnswers: true },
        })
      ).status,
    ).toBe(200);
    expect(full((await get('/v1/competitions/c/tasks/export')).body)).toMatchObject(expected);
  });
});

describe('bad requests', () => {
  it.each([
    ['/v1/competitions/c/runs/export?format=xlsx', ['ndjson', 'csv', 'parquet']],
    ['/v1/competitions/c/tasks/export?format=parquet', ['ndjson', 'csv']],
  ])('%s is a 400 naming querystring/format and the accepted formats', async (url, formats) => {
    const res = await t.call({ method: 'GET', url });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['querystring/format']);
    for (const f of formats) expect(res.body.detail).toContain(`"${f}"`);
  });

  it.each(['runs', 'tasks'])('%s export of an unknown competition is a 404, to the admin too', async (what) => {
    for (const headers of [{}, admin]) {
      const res = await t.call({ method: 'GET', url: `/v1/competitions/nope/${what}/export?format=csv`, headers });
      expect(res.status).toBe(404);
      expect(res.body.detail).toContain('nope');
    }
  });
});

describe("'export' as an id: it names the export routes, so no run or task may take it", () => {
  it('a run or a task with id export is a 400 naming the field, and nothing is stored', async () => {
    const before = (await get('/v1/competitions/c')).body;
    const run = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: {
        runs: [
          { runId: 'fine', taskId: 'swe-2', kind: 'baseline', resolved: true },
          { runId: 'export', taskId: 'swe-2', kind: 'baseline', resolved: true },
        ],
      },
    });
    expect(run.status).toBe(400);
    expect(run.body.errors.map((e: { path: string }) => e.path)).toEqual(['body/runs/1/runId']);
    expect(run.body.detail).toContain("must not be 'export'");
    const task = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/tasks',
      headers: admin,
      payload: { tasks: [{ id: 'export', type: 'swebench_verified' }] },
    });
    expect(task.status).toBe(400);
    expect(task.body.errors.map((e: { path: string }) => e.path)).toEqual(['body/tasks/0/id']);
    // Nor `imports`, the import sessions' list beside the tasks.
    const imports = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/tasks',
      headers: admin,
      payload: { tasks: [{ id: 'imports', type: 'swebench_verified' }] },
    });
    expect(imports.status).toBe(400);
    expect(imports.body.detail).toContain("must not be 'imports'");
    expect((await get('/v1/competitions/c')).body).toEqual(before);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs/fine' })).status).toBe(404);
  });

  it('ids that merely contain the word are ordinary ids', async () => {
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: admin,
      payload: { runs: [{ runId: 'export-1', taskId: 'swe-2', kind: 'baseline', resolved: true }] },
    });
    expect(res.body).toEqual({ accepted: 1, duplicates: 0 });
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/runs/export-1' })).body.runId).toBe('export-1');
  });
});
