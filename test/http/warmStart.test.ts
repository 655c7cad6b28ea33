// A restarted server answers its first score reads from memory: every competition's final-stage
// scores are computed before the app is returned (and so before it listens and /readyz is 200).
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { admin, seedCompetition, testApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('warm-start');
afterAll(() => dir.remove());

/** How many score computations the app's metrics have counted. */
async function computations(t: Awaited<ReturnType<typeof testApp>>): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('scoring_computation_seconds_count'));
  return Number(line?.split(' ')[1]);
}

it('computes every competition before it serves, so the first reads after a restart compute nothing', async () => {
  const path = join(dir.dir, 'warm.db');
  const first = await testApp({ path });
  const reads: Record<string, unknown> = {};
  for (const id of ['alpha', 'beta']) {
    const { validatorKey } = await seedCompetition(first, id);
    const tasks = [{ id: 'T1', type: 'swebench_verified', complexity: 'short' }];
    await first.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: { tasks } });
    const runs = [
      { runId: 'b', taskId: 'T1', kind: 'baseline', resolved: true, tokens: { input: 900, output: 90 } },
      {
        runId: 'm',
        taskId: 'T1',
        kind: 'miner',
        minerHotkey: 'hk',
        resolved: true,
        tokens: { input: 600, output: 60 },
      },
    ];
    const res = await first.call({
      method: 'POST',
      url: `/v1/competitions/${id}/runs`,
      headers: { authorization: `Bearer ${validatorKey}` },
      payload: { runs },
    });
    expect(res.status).toBe(200);
    reads[id] = (await first.call({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` })).body;
  }
  await first.close();

  const again = await testApp({ path });
  try {
    expect(await computations(again)).toBe(2); // one per competition, during the start
    expect((await again.call({ method: 'GET', url: '/readyz' })).status).toBe(200);
    for (const id of ['alpha', 'beta']) {
      const res = await again.call({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` });
      expect(res.body).toEqual(reads[id]);
      expect((await again.call({ method: 'GET', url: `/v1/competitions/${id}/weights` })).status).toBe(200);
    }
    expect(await computations(again)).toBe(2); // the reads computed nothing
  } finally {
    await again.close();
  }
});
