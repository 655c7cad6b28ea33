// The periodic snapshot pass (services/snapshots.ts takeChanged): a competition whose snapshot
// fails is reported by its id, and the pass goes on to the competitions after it.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

async function competitionWithARun(id: string) {
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}`, headers: admin, payload: { name: id } })).status,
  ).toBe(201);
  const tasks = { tasks: [{ id: 't', type: 'swebench_verified' }] };
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: tasks })).status,
  ).toBe(200);
  const runs = [{ runId: `${id}-1`, taskId: 't', kind: 'baseline', attemptNo: 1, resolved: true }];
  const res = await t.call({ method: 'POST', url: `/v1/competitions/${id}/runs`, headers: admin, payload: { runs } });
  expect(res.status).toBe(200);
}

// A broken row is how one competition's snapshot fails here: SQLite stores JSON as text, so it can
// hold a task whose QnA field does not parse (PostgreSQL's jsonb cannot). The pass is the same code on both.
it.runIf(TEST_ENGINE === 'sqlite')(
  'a competition whose snapshot fails is named, and the competitions after it are still taken',
  async () => {
    await competitionWithARun('a');
    await competitionWithARun('b');
    await t.query("UPDATE tasks SET qna = '{broken' WHERE competition_id = 'a'");
    const failed: string[] = [];
    const taken = await t.app.services.snapshots.takeChanged((competitionId) => failed.push(competitionId));
    expect(failed).toEqual(['a']);
    expect(taken).toBe(1);
    const b = await t.call({ method: 'GET', url: '/v1/competitions/b/snapshots/latest' });
    expect(b.status).toBe(200);
  },
);
