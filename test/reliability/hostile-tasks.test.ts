// Hostile task writes: bulk upserts and QnA imports. Every malformed request gets a 4xx
// problem+json naming the offending field, row or id, and the database is unchanged to the byte:
// the valid tasks sent beside the bad one are not stored either.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { COMPETITION, CRITERIA, QNA_TASK, TASKS } from './fixture.js';
import { MEGA, badId, extraKey, hostileTarget, notString, storm, type Attack, type Target } from './hostileKit.js';
import type { Json } from '../support/json.js';

const url = `/v1/competitions/${COMPETITION}/tasks`;
const importUrl = `${url}/import`;
const safeId = fc.stringMatching(/^[a-z0-9]{1,20}$/);
const qna = TASKS.find((t) => t.id === QNA_TASK)!.qna!;
const fresh = [
  { id: 'fresh-1', type: 'swebench_verified', complexity: 'short' },
  { id: 'fresh-2', type: 'swe_atlas_qna', qna: { ...qna } },
];
/** Real SWE-Atlas-QnA-AA rows, to break one field of. */
const realRows = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .slice(0, 3)
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const jsonl = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

let target: Target;
beforeAll(async () => {
  target = await hostileTarget();
});
afterAll(async () => {
  console.log(`[hostile-tasks] malformed requests tried: ${target.count}, all 4xx problem+json, database unchanged`);
  await target.t.close();
});

/** Valid fresh tasks with `bad` at `at`. */
function tasks(name: string, bad: unknown, at: number, status: number, mentions: Attack['mentions']): Attack {
  const list: unknown[] = fresh.map((t) => structuredClone(t));
  list.splice(at, 0, bad);
  return { name, method: 'PUT', url, body: { tasks: list }, status, mentions };
}
const labels = ['short', 'medium', 'long'];
const badTaskField: Record<string, fc.Arbitrary<unknown>> = {
  id: fc.oneof(badId, notString),
  type: fc.constantFrom('swebench', 'SWE_ATLAS_QNA', 'swe_atlas_qna ', '', 5, null),
  stage: fc.constantFrom('final', 'Evaluation', 'screener_3', '', 1, null, ['evaluation']),
  complexity: fc.oneof(
    fc.constantFrom(
      'huge',
      'Short!',
      's',
      '',
      'short medium',
      'LONGER',
      'medium-ish',
      'lo ng',
      '\u200bshort',
      0,
      true,
      [],
      {},
    ),
    fc.string({ maxLength: 10 }).filter((s) => !labels.includes(s.trim().toLowerCase())),
  ),
  plannedRuns: fc.constantFrom(0, -1, 1.5, 1001, '3', true, 1e20, Number.MAX_VALUE),
  qna: fc.constantFrom(qna, 'x', 5, { ...qna, language: 'rust' }),
};

describe('hostile task upserts', () => {
  it('task fields of the wrong type, unknown labels, bad complexity', () =>
    storm(
      target,
      fc
        .constantFrom(...Object.keys(badTaskField))
        .chain((f) => fc.tuple(fc.constant(f), badTaskField[f]!, fc.nat(2)))
        .map(([field, value, at]) =>
          tasks(`task ${field}`, { id: 'bad-task', type: 'swebench_verified', [field]: value }, at, 400, [
            `tasks/${at}/${field}`,
          ]),
        ),
      45,
    ));

  const badQnaField: [string, unknown][] = [
    ['repositoryUrl', 'not a repo'],
    ['repositoryUrl', '../../etc'],
    ['repositoryBaseCommit', 'HEAD'],
    ['repositoryBaseCommit', 'A'.repeat(40)],
    ['language', 'rust'],
    ['prompt', ''],
    ['prompt', 5],
    ['category', MEGA],
    ['dockerImage', null],
    ['referenceAnswer', undefined],
  ];
  const badCriterion: [string, unknown][] = [
    ['id', 'xyz'],
    ['id', CRITERIA[0].toUpperCase()],
    ['id', CRITERIA[0].slice(1)],
    ['type', 'neutral'],
    ['importance', 'nice to have'],
    ['title', ''],
    ['title', 'x'.repeat(4001)],
    ['change', 'rewrite'],
    ['originalTitle', 7],
  ];
  it('QnA content and rubric criteria that break the schema', () =>
    storm(
      target,
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom(...badQnaField).map((b) => ['qna', ...b] as const),
            fc.constantFrom(...badCriterion).map((b) => ['rubric', ...b] as const),
          ),
          fc.nat(2),
        )
        .map(([[where, field, value], at]) => {
          const task = { id: 'bad-qna', type: 'swe_atlas_qna', qna: structuredClone(qna) as Json };
          if (where === 'qna') task.qna[field] = value;
          else task.qna.rubric[1][field] = value;
          return tasks(`${where} ${field}`, task, at, 400, [
            where === 'qna' ? `tasks/${at}/qna/${field}` : `tasks/${at}/qna/rubric/1/${field}`,
          ]);
        }),
      30,
    ));

  it('repeated task ids, repeated criterion ids and unknown fields', () =>
    storm(
      target,
      fc
        .tuple(
          fc.constantFrom('task', 'criterion', 'extra'),
          safeId,
          extraKey(['id', 'type', 'stage', 'complexity', 'plannedRuns', 'qna']),
          fc.nat(2),
        )
        .map(([kind, id, key, at]) => {
          if (kind === 'task')
            return tasks('repeated task', { id: 'fresh-1', type: 'swebench_verified', stage: 'screener_1' }, at, 400, [
              'fresh-1',
              'repeated',
            ]);
          if (kind === 'criterion') {
            const q = structuredClone(qna);
            q.rubric = [q.rubric[0]!, { ...q.rubric[0]!, title: `again ${id}` }];
            return tasks('repeated criterion', { id: `q-${id}`, type: 'swe_atlas_qna', qna: q }, at, 400, [
              CRITERIA[0],
              'repeated',
            ]);
          }
          return tasks('extra field', { id: `t-${id}`, type: 'swebench_verified', [key]: 1 }, at, 400, [
            key.toLowerCase(),
            'unknown field',
          ]);
        }),
      15,
    ));

  it('requests of the wrong shape, and unknown competitions', () =>
    storm(
      target,
      fc.oneof(
        fc
          .constantFrom<[unknown, string]>(
            [{ tasks: [] }, 'body/tasks'],
            [{}, 'body/tasks'],
            [{ tasks: {} }, 'body/tasks'],
            [{ tasks: 'x' }, 'body/tasks'],
            [[], 'body'],
            ['null', 'body'],
            [{ tasks: [null] }, 'tasks/0'],
            [{ task: fresh }, 'task'],
          )
          .map(([body, mention]): Attack => ({
            name: 'tasks shape',
            method: 'PUT',
            url,
            body,
            status: 400,
            mentions: [mention],
          })),
        safeId.map((c): Attack => ({
          name: 'unknown competition',
          method: 'PUT',
          url: `/v1/competitions/ghost-${c}/tasks`,
          body: { tasks: fresh },
          status: 404,
          mentions: [`competition ghost-${c}`],
        })),
      ),
      15,
    ));

  it('changing the type or rubric of tasks that have runs (409)', () =>
    storm(
      target,
      fc.tuple(fc.constantFrom('type', 'rubric', 'criterion type'), fc.nat(2)).map(([change, at]) => {
        if (change === 'type')
          return tasks('type change', { id: 'sw-1', type: 'swe_atlas_qna', qna }, at, 409, ['sw-1', 'type or rubric']);
        const q = structuredClone(qna) as Json;
        if (change === 'rubric') q.rubric[0].title = 'Reworded';
        else q.rubric[1].type = 'positive hli verifier';
        return tasks(`${change} change`, { id: QNA_TASK, type: 'swe_atlas_qna', qna: q }, at, 409, [
          QNA_TASK,
          'type or rubric',
        ]);
      }),
      10,
    ));
});

describe('hostile QnA imports', () => {
  it('real rows with one field broken: the row number and field are named', () =>
    storm(
      target,
      fc
        .tuple(
          fc.nat(2),
          fc.constantFrom(
            'task_id',
            'prompt',
            'reference_answer',
            'repository_url',
            'repository_base_commit',
            'language',
            'rubric',
            'docker_image',
          ),
          fc.constantFrom<unknown>(undefined, 5, '', '   ', null, ['x']),
        )
        .map(([row, field, value]): Attack => {
          const rows = realRows.map((r) => ({ ...r }));
          if (value === undefined) delete rows[row]![field];
          else rows[row]![field] = value;
          return {
            name: `import ${field}`,
            method: 'POST',
            url: importUrl,
            body: jsonl(rows),
            contentType: 'application/x-ndjson',
            status: 400,
            mentions: [`row ${row + 1}/${field}`],
          };
        }),
      25,
    ));

  it('lines that are not JSON objects', () =>
    storm(
      target,
      fc
        .tuple(
          fc.nat(2),
          fc.oneof(
            fc.constantFrom('{', 'NaN', '[1,2]', '"text"', '{"task_id": NaN}', 'null', '42'),
            fc
              .string({ minLength: 1, maxLength: 30 })
              .filter((s) => s.trim() !== '' && !s.includes('\n') && !s.includes('\r')),
          ),
        )
        .map(([row, line]): Attack => {
          const rows: unknown[] = [...realRows];
          rows.splice(row, 0, line);
          return {
            name: 'import line',
            method: 'POST',
            url: importUrl,
            body: jsonl(rows),
            contentType: 'application/x-ndjson',
            status: 400,
            mentions: [`row ${row + 1}/`],
          };
        }),
      15,
    ));

  it('Parquet that is not Parquet, empty files, wrong content types (415), bad query, unknown competition', () =>
    storm(
      target,
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 400 }).map((bytes): Attack => ({
          name: 'garbage parquet',
          method: 'POST',
          url: importUrl,
          body: Buffer.from(bytes),
          contentType: 'application/vnd.apache.parquet',
          status: 400,
          mentions: ['parquet'],
        })),
        fc
          .constantFrom<[unknown, string]>(
            [{ a: 1 }, 'application/json'],
            ['abc', 'text/plain'],
            ['<rows/>', 'application/xml'],
            ['a=1', 'application/x-www-form-urlencoded'],
            ['--x\r\n\r\n--x--', 'multipart/form-data; boundary=x'],
            [jsonl(realRows), ''],
          )
          .map(([body, contentType]): Attack => ({
            name: `import as ${contentType || 'no content type'}`,
            method: 'POST',
            url: importUrl,
            body,
            contentType,
            status: 415,
            mentions: [/media type|parquet/],
          })),
        // An empty file of a type the route takes: a bad body (400), not a bad type.
        fc.constantFrom('application/x-ndjson', 'application/vnd.apache.parquet').map((contentType): Attack => ({
          name: `an empty file as ${contentType}`,
          method: 'POST',
          url: importUrl,
          body: '',
          contentType,
          status: 400,
          mentions: [/the file is empty/],
        })),
        fc.constantFrom('stage=final', 'complexity=huge', 'stage=Evaluation', 'complexity=').map((q): Attack => ({
          name: 'import query',
          method: 'POST',
          url: `${importUrl}?${q}`,
          body: jsonl(realRows),
          contentType: 'application/x-ndjson',
          status: 400,
          mentions: [`querystring/${q.split('=')[0]}`],
        })),
        safeId.map((c): Attack => ({
          name: 'import to unknown competition',
          method: 'POST',
          url: `/v1/competitions/ghost-${c}/tasks/import`,
          body: jsonl(realRows),
          contentType: 'application/x-ndjson',
          status: 404,
          mentions: [`ghost-${c}`],
        })),
      ),
      30,
    ));
});
