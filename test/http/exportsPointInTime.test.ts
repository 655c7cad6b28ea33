// The export service with small pages: the stream is pulled page by page, other requests write
// while it is open (no statement stays open between chunks), and a runs export stands at the run
// sequence of its start whatever is stored or deleted meanwhile.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { exportRow, listedRuns, ndjsonRows, parquetRows } from '../support/exportRows.js';
import { exportsService } from '../../src/services/exports.js';

const RUNS = 1500;
let t: TestApp;
let validator: { authorization: string };
const post = (runIds: string[]) =>
  t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: validator,
    payload: {
      runs: runIds.map((runId) => ({
        runId,
        taskId: 'swe',
        kind: 'miner',
        minerHotkey: 'm',
        resolved: true,
        tokens: { input: 5, output: 1 },
      })),
    },
  });

beforeEach(async () => {
  t = await testApp();
  validator = { authorization: `Bearer ${(await seedCompetition(t, 'c')).validatorKey}` };
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'swe', type: 'swebench_verified' }] },
  });
  expect((await post(Array.from({ length: RUNS }, (_, i) => `r${i}`))).body.accepted).toBe(RUNS);
});
afterEach(async () => t.close());

const text = async (chunks: AsyncIterable<Buffer>) => {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
};

describe('runs export while the competition changes', () => {
  it('reads pages only as the client pulls, lets writes through mid-stream, and stands at its start', async () => {
    const before = await listedRuns(t, 'c');
    let pagesRead = 0;
    const runPage = t.store.exports.runPage.bind(t.store.exports);
    t.store.exports.runPage = (...args) => (pagesRead++, runPage(...args));
    const body = await exportsService(t.store, { runs: 10, parquet: 25, tasks: 2 }).runs('c', 'ndjson', null);
    const chunks = body.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await chunks.next();
    // One 64 KiB chunk is about 230 runs: far from the 150 pages of the whole export.
    expect(pagesRead).toBeGreaterThan(0);
    expect(pagesRead).toBeLessThan(60);

    // Writes on the same connection while the export is open: a deletion ahead of it, new runs after it.
    expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/r1400', headers: admin })).status).toBe(200);
    expect((await post(['late-1', 'late-2'])).body.accepted).toBe(2);

    const rest = await text({ [Symbol.asyncIterator]: () => chunks });
    const rows = ndjsonRows(Buffer.from(first.value).toString('utf8') + rest);
    expect(rows).toEqual(before.map(exportRow));
    expect(pagesRead).toBe(RUNS / 10 + 1);

    // A new export stands at the new sequence: without the deleted run, with the late ones.
    const now = ndjsonRows(await text((await exportsService(t.store).runs('c', 'ndjson', null)).stream));
    expect(now.map((r) => r.runId)).toEqual([
      ...before.map((r) => r.runId).filter((id) => id !== 'r1400'),
      'late-1',
      'late-2',
    ]);
    expect(now).toEqual((await listedRuns(t, 'c')).map(exportRow));
  });

  it('Parquet with a row group per page holds every run, in order', async () => {
    const stream = (await exportsService(t.store, { runs: 10, parquet: 25, tasks: 2 }).runs('c', 'parquet', null))
      .stream;
    const parts: Buffer[] = [];
    for await (const c of stream) parts.push(c as Buffer);
    const { rows, numRows, rowGroups } = await parquetRows(Buffer.concat(parts));
    expect([numRows, rowGroups]).toEqual([RUNS, RUNS / 25]);
    expect(rows).toEqual((await listedRuns(t, 'c')).map((r) => ({ ...exportRow(r), criteria: null })));
  });
});

describe('tasks export in small pages', () => {
  it('gives the same bytes as one page: rubrics stay with their tasks across page ends', async () => {
    const rubric = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `${n}${i}`.padEnd(32, 'f'),
        type: 'positive',
        title: `t${i}`,
        importance: 'must have',
      }));
    const qna = (n: number) => ({
      prompt: 'p',
      referenceAnswer: 'a',
      repositoryUrl: 'o/n',
      repositoryBaseCommit: 'e'.repeat(40),
      language: 'go',
      category: 'c',
      dockerImage: 'i',
      rubric: rubric(n),
    });
    const tasks = [1, 2, 3, 4, 5].map((n) => ({ id: `q${n}`, type: 'swe_atlas_qna', qna: qna(n) }));
    expect(
      (await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } })).body,
    ).toEqual({ imported: 5, updated: 0, unchanged: 0 });
    for (const format of ['ndjson', 'csv'] as const) {
      const small = await text(
        (await exportsService(t.store, { runs: 10, parquet: 25, tasks: 2 }).tasks('c', format, { kind: 'admin' }))
          .stream,
      );
      expect(small).toBe(await text((await exportsService(t.store).tasks('c', format, { kind: 'admin' })).stream));
    }
    const rows = ndjsonRows(
      await text(
        (await exportsService(t.store, { runs: 10, parquet: 25, tasks: 2 }).tasks('c', 'ndjson', { kind: 'admin' }))
          .stream,
      ),
    );
    expect(rows.map((r) => [r.id, r.rubric?.length ?? null])).toEqual([
      ['q1', 1],
      ['q2', 2],
      ['q3', 3],
      ['q4', 4],
      ['q5', 5],
      ['swe', null],
    ]);
  });
});
