// Limits: the ones the OpenAPI document states (served and committed) are the ones the server
// enforces, and requests right at each limit succeed: 5,000 runs, 5,000 tasks, an 8,000-character
// vote reason, 128-character identifiers in every path.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/schemas/common.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { COMPETITION, CRITERIA, setupCompetition } from './fixture.js';
import { qnaRun, validRun, votes } from './hostileKit.js';
import type { Json } from '../support/json.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  await setupCompetition((method, url, payload) =>
    t.call({ method: method, url, headers: admin, payload: payload as object }),
  );
});
afterAll(() => t.close());

type Doc = { components: { schemas: Record<string, Json> }; paths: Record<string, Record<string, Json>> };
const committed = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Doc;

function checkDocument(doc: Doc) {
  const schema = (name: string) => doc.components.schemas[`${name}Input`] ?? doc.components.schemas[name];
  const prop = (name: string, field: string) => schema(name)?.properties?.[field];
  expect(prop('RunBatch', 'runs')).toMatchObject({ minItems: 1, maxItems: LIMITS.runsPerBatch });
  expect(prop('TaskUpsert', 'tasks')).toMatchObject({ minItems: 1, maxItems: LIMITS.tasksPerRequest });
  expect(prop('Vote', 'reason')).toMatchObject({ type: 'string', maxLength: LIMITS.voteTextLength });
  expect(prop('Vote', 'evidence')).toMatchObject({ type: 'string', maxLength: LIMITS.voteTextLength });
  expect(prop('CriterionVotes', 'votes')).toMatchObject({ maxItems: LIMITS.maxJudgeVotes });
  expect(prop('MinerRun', 'rubricVotes')).toMatchObject({ maxItems: LIMITS.criteriaPerTask });
  expect(prop('QnaContent', 'rubric')).toMatchObject({ maxItems: LIMITS.criteriaPerTask });
  expect(prop('NewValidator', 'name')).toMatchObject({ maxLength: LIMITS.nameLength });
  expect(prop('CompetitionSettings', 'name')).toMatchObject({ maxLength: LIMITS.nameLength });
  expect(prop('MinerStanding', 'reason')).toMatchObject({ maxLength: LIMITS.reasonLength });
  for (const field of ['input', 'cachedInput', 'output']) {
    expect(prop('Tokens', field)).toMatchObject({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  }
  for (const field of ['runId', 'taskId', 'minerHotkey']) {
    const id = prop('MinerRun', field);
    expect(id).toMatchObject({ maxLength: LIMITS.idLength });
    // One pattern: a run id's also refuses `export` (the export route's name), a miner's hotkey
    // `baseline` (coverage's name for the baseline's pairs), by a lookahead.
    const reserved = { runId: '(?!export$)', taskId: '', minerHotkey: '(?!baseline$)' }[field];
    expect(id.pattern).toBe(`^(?!\\.\\.?$)${reserved}[A-Za-z0-9._:-]+$`);
  }
  // Every path parameter of every route carries the 128-character cap.
  let params = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const op of Object.values(ops)) {
      for (const p of (op.parameters ?? []).filter((x: Json) => x.in === 'path')) {
        params++;
        expect(p.schema, `${path} {${p.name}}`).toMatchObject({
          type: 'string',
          minLength: 1,
          maxLength: LIMITS.idLength,
        });
      }
    }
  }
  expect(params).toBeGreaterThanOrEqual(15);
  expect(doc.paths['/v1/competitions/{competitionId}/tasks/import']!.post.description).toContain('32 MiB');
  expect(doc.paths['/v1/competitions/{competitionId}/runs']!.post.responses).toHaveProperty('413');
}

describe('the OpenAPI document states the limits', () => {
  it('as served by the app', () => checkDocument(t.app.swagger() as unknown as Doc));
  it('as committed in openapi/openapi.json', () => checkDocument(committed));
  it('and the body limit is the one the server applies', () => {
    expect(LIMITS.bodyBytes).toBe(32 * 1024 * 1024);
    expect(t.app.initialConfig.bodyLimit).toBe(LIMITS.bodyBytes);
    console.log(
      `[limits] body ${LIMITS.bodyBytes} bytes (32 MiB), runs per batch ${LIMITS.runsPerBatch}, tasks per request ${LIMITS.tasksPerRequest}, ` +
        `identifiers ${LIMITS.idLength} chars, names ${LIMITS.nameLength}, vote reason/evidence ${LIMITS.voteTextLength}, ` +
        `miner reason ${LIMITS.reasonLength}, criteria per task ${LIMITS.criteriaPerTask}, judge votes 1..${LIMITS.maxJudgeVotes} (odd)`,
    );
  });
});

describe('requests right at the limits succeed', () => {
  const c = `/v1/competitions/${COMPETITION}`;
  it('5,000 runs in one batch, and 5,000 tasks in one request', async () => {
    const runs = Array.from({ length: LIMITS.runsPerBatch }, (_, i) =>
      validRun(`max-${i}`, { taskId: `sw-${1 + (i % 5)}` }),
    );
    const res = await t.call({ method: 'POST', url: `${c}/runs`, headers: admin, payload: { runs } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: LIMITS.runsPerBatch, duplicates: 0 });
    const tasks = Array.from({ length: LIMITS.tasksPerRequest }, (_, i) => ({
      id: `bulk-${i}`,
      type: 'swebench_verified',
      complexity: ' Medium ',
    }));
    const put = await t.call({ method: 'PUT', url: `${c}/tasks`, headers: admin, payload: { tasks } });
    expect(put.body).toEqual({ imported: LIMITS.tasksPerRequest, updated: 0, unchanged: 0 });
  });

  it('vote reasons and evidence of 8,000 characters', async () => {
    const text = 'é'.repeat(LIMITS.voteTextLength);
    const run = qnaRun('long-votes', {
      rubricVotes: CRITERIA.map((criterionId) => ({
        criterionId,
        votes: votes(['NO', 'NO', 'NO']).map((v) => ({ ...v, reason: text, evidence: text })),
      })),
    });
    expect((await t.call({ method: 'POST', url: `${c}/runs`, headers: admin, payload: { runs: [run] } })).status).toBe(
      200,
    );
    // The judge's text is the answer key: the admin reads it.
    const got = await t.call({ method: 'GET', url: `${c}/runs/long-votes`, headers: admin });
    expect(got.body.rubricVotes[1].votes[2].reason).toBe(text);
  });

  it('identifiers of 128 characters in every path; 129 is a 400 naming the parameter', async () => {
    const id = (ch: string, n: number = LIMITS.idLength) => ch.repeat(n);
    const comp = `/v1/competitions/${id('C')}`;
    expect((await t.call({ method: 'PUT', url: comp, headers: admin, payload: { name: 'long id' } })).status).toBe(201);
    expect(
      (
        await t.call({
          method: 'PUT',
          url: `${comp}/tasks`,
          headers: admin,
          payload: { tasks: [{ id: id('T'), type: 'swebench_verified' }] },
        })
      ).status,
    ).toBe(200);
    const run = { runId: id('R'), taskId: id('T'), kind: 'miner', minerHotkey: id('H'), resolved: true };
    expect(
      (await t.call({ method: 'POST', url: `${comp}/runs`, headers: admin, payload: { runs: [run] } })).status,
    ).toBe(200);
    for (const path of [
      comp,
      `${comp}/tasks/${id('T')}`,
      `${comp}/runs/${id('R')}`,
      `${comp}/miners/${id('H')}`,
      `${comp}/leaderboard`,
    ]) {
      const res = await t.call({ method: 'GET', url: path });
      expect(res.status, `GET ${path.slice(0, 60)}...: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
    }
    expect(
      (await t.call({ method: 'PUT', url: `${comp}/miners/${id('H')}`, headers: admin, payload: { excluded: true } }))
        .status,
    ).toBe(200);
    expect((await t.call({ method: 'DELETE', url: `${comp}/runs/${id('R')}`, headers: admin })).status).toBe(200);
    for (const [path, param] of [
      [`/v1/competitions/${id('C', 129)}`, 'competitionId'],
      [`${comp}/runs/${id('R', 129)}`, 'runId'],
      [`${comp}/miners/${id('H', 129)}`, 'hotkey'],
    ]) {
      const res = await t.call({ method: 'GET', url: path! });
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain(`params/${param}`);
    }
  });
});
