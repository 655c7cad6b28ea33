// POST /v1/score at the door: a token (admin or validator) is required; the document is scored in
// a worker thread within stated limits, and a document past one (miners, tasks, runs, answer bytes,
// memory, time) is a 413 naming it and its setting, never a 500; past the documents scored at
// once, a 503 with Retry-After.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_SETTINGS, type ScoreSettings } from '../../src/services/scoreInWorker.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { documentText, type DocumentSize } from '../support/documents.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const small: DocumentSize = { miners: 3, tasks: 2, runsEach: 2 };

async function app(scoring: Partial<ScoreSettings> = {}) {
  t = await testApp({ scoring: { ...DEFAULT_SCORE_SETTINGS, ...scoring } });
  return t;
}

const score = (a: TestApp, body: string, headers: Record<string, string> = admin) =>
  a.call({
    method: 'POST',
    url: '/v1/score',
    headers: { ...headers, 'content-type': 'application/x-ndjson' },
    payload: body,
  });

describe('POST /v1/score', () => {
  it('needs a token: none is a 401; a validator and the admin are answered', async () => {
    const a = await app();
    const { validatorKey } = await seedCompetition(a, 'c');
    const text = documentText(small);
    const anonymous = await score(a, text, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    const byValidator = await score(a, text, { authorization: `Bearer ${validatorKey}` });
    expect(byValidator.status).toBe(200);
    expect(byValidator.body.leaderboard.miners).toHaveLength(3);
    expect((await score(a, text)).body).toEqual(byValidator.body);
  });

  it.each([
    ['miners', { miners: 11, tasks: 1, runners: 0 }, 'body/line 1/competition.miners', 'SCORING_SCORE_MAX_MINERS'],
    ['tasks', { miners: 1, tasks: 11 }, 'body/line 1/competition.counts.tasks', 'SCORING_SCORE_MAX_TASKS'],
    ['runs', { miners: 2, tasks: 2, runsEach: 3 }, 'body/line 1/competition.counts.runs', 'SCORING_SCORE_MAX_RUNS'],
  ] as const)('a document past the %s limit is a 413 naming it', async (limit, size, path, setting) => {
    const a = await app({ miners: 10, tasks: 10, runs: 10 });
    const res = await score(a, documentText(size));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.type).toBe('urn:swe-scoring:problem:too-large');
    expect(res.body.detail).toContain(`takes at most 10 (${setting})`);
    expect(res.body.detail).toContain('swe-scoring score');
    expect(res.body.errors).toEqual([
      { path, message: expect.stringContaining(`${limit}, more than the limit of 10`) },
    ]);
    // At the limit, it is scored.
    expect((await score(a, documentText({ miners: 10, tasks: 2, runners: 2, runsEach: 1 }))).status).toBe(200);
  });

  it('an answer past the answer limit is a 413 naming SCORING_SCORE_MAX_ANSWER_BYTES', async () => {
    const a = await app({ answerBytes: 2000 });
    expect((await score(a, documentText({ miners: 1, tasks: 1 }))).status).toBe(200);
    const res = await score(a, documentText({ miners: 40, tasks: 1 }));
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/answer .* larger than 2000 bytes \(SCORING_SCORE_MAX_ANSWER_BYTES\)/);
  });

  it('a worker past its memory is a 413 naming SCORING_SCORE_MEMORY_MB, and the next document is scored', async () => {
    const a = await app({ miners: 1_000_000, memoryMb: 16 });
    const res = await score(a, documentText({ miners: 300_000, tasks: 2, runners: 0 }));
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/needs more than 16 MiB \(SCORING_SCORE_MEMORY_MB\)/);
    expect((await score(a, documentText(small))).status).toBe(200);
  });

  it('a document scored past the time limit is a 413 naming SCORING_SCORE_TIMEOUT_MS', async () => {
    const a = await app({ timeoutMs: 100, miners: 1_000_000 });
    const res = await score(a, documentText({ miners: 300_000, tasks: 2, runners: 0 }));
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/longer than 100 ms \(SCORING_SCORE_TIMEOUT_MS\)/);
  });

  it('past the documents scored at once, a 503 with Retry-After', async () => {
    const a = await app({ concurrent: 1 });
    const text = documentText(small);
    const [first, second] = await Promise.all([score(a, text), score(a, text)]);
    expect([first.status, second.status].sort()).toEqual([200, 503]);
    const busy = first.status === 503 ? first : second;
    expect(busy.headers['retry-after']).toBeDefined();
    expect(busy.body.detail).toMatch(/SCORING_SCORE_CONCURRENCY/);
  });

  it('bytes that are not a document are a 400 naming the line, never a 500', async () => {
    const a = await app();
    for (const body of [
      'not json\n',
      '{"competition": 1}\n',
      `${'['.repeat(100_000)}\n`,
      '\u0000\n',
      '{"__proto__": {}}\n',
      // JSON that is not an object: `null` once threw a TypeError (a 500) reading it as a problem answer.
      'null\n',
      '"competition"\n',
      '[]\n',
    ]) {
      const res = await score(a, body);
      expect(res.status, body.slice(0, 20)).toBe(400);
      expect(res.body.errors[0].path).toMatch(/^body\/line 1/);
    }
  });
});
