// POST /v1/score on a real server process: a 3 MB document naming 300,000 miners (whose scores
// would be some 84 MB of JSON) is a 413 within seconds, and while a large but allowed document is
// scored (in its worker thread) the server keeps answering /healthz.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { documentText } from '../support/documents.js';
import { SERVER_ADMIN_TOKEN, startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

const score = (baseUrl: string, body: string) =>
  fetch(`${baseUrl}/v1/score`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
    body,
  });

it('a 300,000-miner document is a quick 413; /healthz answers while a large document is scored', async () => {
  const server = await startServer({ dbPath: join(tempDir('score').dir, 'scoring.db') });

  const huge = documentText({ miners: 300_000, tasks: 1, runners: 0 });
  let started = performance.now();
  const refused = await score(server.baseUrl, huge);
  const refusedMs = performance.now() - started;
  expect(refused.status).toBe(413);
  const problem = (await refused.json()) as { detail: string };
  expect(problem.detail).toMatch(/300000 miners; POST \/v1\/score takes at most 4096 \(SCORING_SCORE_MAX_MINERS\)/);
  expect(refusedMs).toBeLessThan(5000);

  // The reference competition's miners and tasks, a run each: some 15 MB, seconds of scoring.
  const large = documentText({ miners: 256, tasks: 324, runsEach: 1 });
  const health: number[] = [];
  let scoring = true;
  const poll = (async () => {
    while (scoring) {
      const t0 = performance.now();
      const res = await fetch(`${server.baseUrl}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  started = performance.now();
  const scored = await score(server.baseUrl, large);
  const scoredMs = performance.now() - started;
  scoring = false;
  await poll;
  expect(scored.status).toBe(200);
  const body = (await scored.json()) as { leaderboard: { miners: unknown[] } };
  expect(body.leaderboard.miners).toHaveLength(256);
  // /healthz was answered throughout, each within a fraction of the scoring's time.
  expect(health.length).toBeGreaterThan(5);
  expect(Math.max(...health)).toBeLessThan(Math.max(500, scoredMs / 4));
  console.log(
    `POST /v1/score: 300,000 miners refused in ${Math.round(refusedMs)} ms; ${large.length} bytes scored in ` +
      `${Math.round(scoredMs)} ms, /healthz answered ${health.length} times, slowest ${Math.round(Math.max(...health))} ms`,
  );
}, 120_000);
