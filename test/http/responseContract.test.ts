// What the server answers is what openapi.json says it answers: every JSON read of a competition
// holding each kind of thing (SWE-bench and QnA tasks, a judge configuration, runs graded under
// it, a snapshot), through the real app, validated against its operation's documented response
// schema by a JSON Schema validator (Ajv, draft 2020-12, the dialect of OpenAPI 3.1). Generated
// clients are built from that document; a field it does not list breaks the strict ones.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { JUDGE, P, qna as kitQna } from './trustKit.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
const DOC = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(DOC, 'openapi');

/** The documented path template a concrete path matches (literal segments before parameters). */
function templateOf(path: string): string {
  const segments = path.split('?')[0]!.split('/');
  const matches = Object.keys(DOC.paths).filter((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i]);
  });
  // `/snapshots/latest` matches `/snapshots/{seq}` too: the one with more literal segments is meant.
  const literal = (t: string) => t.split('/').filter((p) => !p.startsWith('{')).length;
  const best = matches.sort((a, b) => literal(b) - literal(a))[0];
  if (!best) throw new Error(`no documented path for ${path}`);
  return best;
}

/** Validates a GET's 200 JSON body against its documented schema; the validator's errors, if any. */
function problems(path: string, body: unknown): string[] {
  const template = templateOf(path);
  const json = DOC.paths[template]!.get!.responses['200']!.content?.['application/json'];
  if (!json?.schema) throw new Error(`GET ${template} documents no JSON body for 200`);
  const escaped = template.replaceAll('~', '~0').replaceAll('/', '~1');
  const pointer = `openapi#/paths/${escaped}/get/responses/200/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

const DIGEST = createHash('sha256').update(canonicalJson(JUDGE), 'utf8').digest('hex');
/** trustKit's QnA task with its positive criterion alone. */
const qna = { ...kitQna, rubric: kitQna.rubric.slice(0, 1) };
const MINER = '5GthCMjCnhbwA2s1n7HDWQtryiFx9pYWbce8fWjku8hvqnHr';

function qnaRun(runId: string, miner: string | null, yes: boolean) {
  return {
    runId,
    taskId: 'q1',
    ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
    tokens: { input: 1000, output: 100 },
    rubricVotes: [{ criterionId: P, votes: Array.from({ length: 3 }, () => ({ verdict: yes ? 'YES' : 'NO' })) }],
    judge: { digest: DIGEST },
    answerDate: '2026-11-30',
  };
}
const sweRun = (runId: string, miner: string | null, resolved: boolean) => ({
  runId,
  taskId: 's1',
  ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
  resolved,
  tokens: { input: 1000, output: 100 },
});

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  const ok = async (method: 'PUT' | 'POST', url: string, payload: unknown, status = [200, 201]) => {
    const res = await t.call({ method, url, headers: admin, payload: payload as Record<string, unknown> });
    expect(status, `${method} ${url}: ${JSON.stringify(res.body)}`).toContain(res.status);
  };
  await ok('PUT', '/v1/competitions/c', { name: 'contract', judgeVotes: 3 });
  await ok('PUT', '/v1/competitions/c/tasks', {
    tasks: [
      { id: 'q1', type: 'swe_atlas_qna', complexity: 'short', qna },
      { id: 's1', type: 'swebench_verified', complexity: 'short' },
    ],
  });
  await ok('PUT', '/v1/competitions/c/judge', JUDGE);
  await ok('POST', '/v1/competitions/c/runs', {
    runs: [
      qnaRun('b-q', null, true),
      qnaRun('m-q', MINER, true),
      sweRun('b-s', null, false),
      sweRun('m-s', MINER, true),
    ],
  });
  await ok('POST', '/v1/competitions/c/snapshots', {});
});
afterAll(async () => {
  await t.close();
});

const READS = [
  '/v1/competitions',
  '/v1/competitions/c',
  '/v1/competitions/c/tasks',
  '/v1/competitions/c/tasks/q1',
  '/v1/competitions/c/validators',
  `/v1/competitions/c/miners/${MINER}`,
  '/v1/competitions/c/runs',
  '/v1/competitions/c/runs/m-q',
  '/v1/competitions/c/leaderboard',
  '/v1/competitions/c/weights',
  '/v1/competitions/c/coverage',
  '/v1/competitions/c/criteria/report',
  '/v1/competitions/c/judge',
  `/v1/competitions/c/judge/${DIGEST}`,
  '/v1/competitions/c/snapshots',
  '/v1/competitions/c/snapshots/latest',
  '/v1/competitions/c/snapshots/1',
  `/v1/competitions/c/miners/${MINER}/history`,
  '/v1/competitions/c/weights/history',
  '/v1/identity',
  '/v1/audit',
  '/v1/validators',
];

it.each(READS)('GET %s answers its documented schema', async (path) => {
  const res = await t.call({ method: 'GET', url: path, headers: admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(problems(path, res.body)).toEqual([]);
});

it('a snapshot taken under a judge names its digest in its settings, in the list as in a single read', async () => {
  for (const path of ['/v1/competitions/c/snapshots/1', '/v1/competitions/c/snapshots/latest']) {
    const res = await t.call({ method: 'GET', url: path });
    expect(res.body).toMatchObject({ settings: { judgeDigest: DIGEST } });
  }
  const list = await t.call({ method: 'GET', url: '/v1/competitions/c/snapshots' });
  expect(list.body).toMatchObject({ snapshots: [{ seq: 1, settings: { judgeDigest: DIGEST } }] });
});

it("every /v1 operation documents the 431 Node's parser answers for a request line and headers over 16 KiB", () => {
  // A long `hotkeys` or `cursor` query gets it on any route (test/http/door.test.ts sends one).
  const missing = Object.entries(DOC.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.responses['431'] === undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
  expect(missing).toEqual([]);
});

it('every documented 408, 429 and 503 declares its Retry-After header, so generated clients expose it', () => {
  const undeclared: string[] = [];
  for (const [path, methods] of Object.entries(DOC.paths))
    for (const [method, op] of Object.entries(methods))
      for (const [status, response] of Object.entries(op.responses))
        if (
          ['408', '429', '503'].includes(status) &&
          !(response as { headers?: object }).headers?.['Retry-After' as never]
        )
          undeclared.push(`${method.toUpperCase()} ${path} ${status}`);
  expect(undeclared).toEqual([]);
});
