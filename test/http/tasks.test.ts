import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
const put = (tasks: object[], c = 'c') =>
  t.call({ method: 'PUT', url: `/v1/competitions/${c}/tasks`, headers: admin, payload: { tasks } });
const hex = (n: number, d: string) => d.repeat(n);
const qna = (criteria: { id: string; type: string }[]) => ({
  prompt: 'Why?',
  referenceAnswer: 'Because.',
  repositoryUrl: 'grafana/k6',
  repositoryBaseCommit: hex(40, 'a'),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric: criteria.map((c) => ({ ...c, title: `criterion ${c.id.slice(0, 4)}`, importance: 'must have' })),
});

beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
});
afterEach(async () => t.close());

describe('tasks', () => {
  it('stores complexity case-insensitively and trimmed, and reports created/updated/unchanged', async () => {
    const first = await put([
      { id: 's', type: 'swebench_verified', complexity: '  SHORT ' },
      { id: 'm', type: 'swebench_verified', complexity: 'Medium', plannedRuns: 5 },
      { id: 'n', type: 'swebench_verified' },
    ]);
    expect(first.body).toEqual({ imported: 3, updated: 0, unchanged: 0 });
    const again = await put([
      { id: 's', type: 'swebench_verified', complexity: 'short' },
      { id: 'n', type: 'swebench_verified', stage: 'screener_1' },
    ]);
    expect(again.body).toEqual({ imported: 0, updated: 1, unchanged: 1 });
    const list = (await t.call({ method: 'GET', url: '/v1/competitions/c/tasks' })).body.tasks;
    expect(
      list.map((x: { id: string; complexity: string | null; stage: string }) => [x.id, x.complexity, x.stage]),
    ).toEqual([
      ['m', 'medium', 'evaluation'],
      ['n', null, 'screener_1'],
      ['s', 'short', 'evaluation'],
    ]);
  });

  it.each([
    [[{ id: 'x', type: 'swebench_verified', complexity: 'huge' }], 'body/tasks/0/complexity'],
    [[{ id: 'x', type: 'other' }], 'body/tasks/0/type'],
    [[{ id: 'x', type: 'swebench_verified', qna: qna([{ id: hex(32, 'b'), type: 'positive' }]) }], 'body/tasks/0/qna'],
    [
      [
        { id: 'x', type: 'swebench_verified' },
        { id: 'x', type: 'swebench_verified' },
      ],
      'body/tasks/1/id',
    ],
    [
      [
        {
          id: 'x',
          type: 'swe_atlas_qna',
          qna: qna([
            { id: hex(32, 'b'), type: 'positive' },
            { id: hex(32, 'b'), type: 'negative' },
          ]),
        },
      ],
      'body/tasks/0/qna/rubric/1/id',
    ],
    [
      [{ id: 'x', type: 'swe_atlas_qna', qna: { ...qna([{ id: 'short', type: 'positive' }]) } }],
      'body/tasks/0/qna/rubric/0/id',
    ],
    [[{ id: 'x/y', type: 'swebench_verified' }], 'body/tasks/0/id'],
  ])('rejects %j with a 400 naming the field, storing nothing', async (tasks, path) => {
    const res = await put(tasks);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/tasks' })).body.tasks).toEqual([]);
  });

  it('unknown competition is a 404', async () => {
    const res = await put([{ id: 'x', type: 'swebench_verified' }], 'nope');
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('nope');
  });

  it('a rubric or type change on a task with runs is a 409; other changes are allowed', async () => {
    const rubric = [{ id: hex(32, 'c'), type: 'positive hli verifier' }];
    await put([{ id: 'q', type: 'swe_atlas_qna', qna: qna(rubric) }]);
    // Before any run, the rubric may change freely.
    expect(
      (await put([{ id: 'q', type: 'swe_atlas_qna', qna: qna([{ id: hex(32, 'd'), type: 'negative' }]) }])).body
        .updated,
    ).toBe(1);
    const vote = { verdict: 'NO' as const };
    const runs = [
      {
        runId: 'r1',
        taskId: 'q',
        kind: 'baseline',
        rubricVotes: [{ criterionId: hex(32, 'd'), votes: [vote, vote, vote, vote, vote] }],
      },
    ];
    expect(
      (await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } })).status,
    ).toBe(200);
    const changed = await put([{ id: 'q', type: 'swe_atlas_qna', qna: qna(rubric) }]);
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toContain('q');
    const retyped = await put([{ id: 'q', type: 'swebench_verified' }]);
    expect(retyped.status).toBe(409);
    const moved = await put([
      { id: 'q', type: 'swe_atlas_qna', complexity: 'long', qna: qna([{ id: hex(32, 'd'), type: 'negative' }]) },
    ]);
    expect(moved.body).toEqual({ imported: 0, updated: 1, unchanged: 0 });
    const view = (await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q', headers: admin })).body;
    expect(view.criteria).toEqual([
      {
        position: 0,
        id: hex(32, 'd'),
        title: 'criterion dddd',
        judgeTitle: 'criterion dddd',
        type: 'negative',
        change: null,
        graded: 1,
        metRate: 1,
        splitRate: 0,
      },
    ]);
  });
});

describe('tasks sent without QnA content', () => {
  it('keep the stored question and rubric of an existing QnA task', async () => {
    await put([{ id: 'q', type: 'swe_atlas_qna', qna: qna([{ id: hex(32, 'e'), type: 'positive' }]) }]);
    const res = await put([{ id: 'q', type: 'swe_atlas_qna', complexity: 'long' }]);
    expect(res.body).toEqual({ imported: 0, updated: 1, unchanged: 0 });
    const view = (await t.call({ method: 'GET', url: '/v1/competitions/c/tasks/q', headers: admin })).body;
    expect(view.complexity).toBe('long');
    expect(view.qna.prompt).toBe('Why?');
    expect(view.criteria.map((c: { id: string }) => c.id)).toEqual([hex(32, 'e')]);
  });
});

describe('one QnA validator for the JSON upsert and the file import', () => {
  it.each([
    ['repositoryUrl', '../..', /owner\/name/],
    ['repositoryUrl', 'grafana/..', /owner\/name/],
    ['prompt', '   ', /must not be empty/],
    ['referenceAnswer', '\n\t', /must not be empty/],
  ])('PUT tasks refuses %s %j, as the import does', async (field, value, message) => {
    const res = await put([
      { id: 'q', type: 'swe_atlas_qna', qna: { ...qna([{ id: hex(32, 'e'), type: 'positive' }]), [field]: value } },
    ]);
    expect(res.status).toBe(400);
    const error = (res.body.errors as { path: string; message: string }[]).find((e) =>
      e.path.endsWith(`/qna/${field}`),
    );
    expect(error?.message).toMatch(message);
  });
});
