// Counts printed with a noun agree with them (web/src/format.ts, counted): a competition of one
// task and one miner says "1 ranked miner", "1 task", "1 run", never "1 ranked miners".
import { beforeAll, describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';

const C = 'one';
const ui = useDashboard({ seed: 'empty' });

beforeAll(async () => {
  await ui.server.send('PUT', `/v1/competitions/${C}`, { name: 'One of each', burnRatio: 0.1 });
  await ui.server.send('PUT', `/v1/competitions/${C}/tasks`, {
    tasks: [{ id: 't1', type: 'swebench_verified', complexity: 'short' }],
  });
  const { apiKey } = await ui.server.send('POST', '/v1/validators', { name: 'v' });
  const runs = [
    { runId: 'b1', taskId: 't1', kind: 'baseline', resolved: true, tokens: { input: 1000, output: 100 } },
    {
      runId: 'm1',
      taskId: 't1',
      kind: 'miner',
      minerHotkey: 'solo',
      resolved: true,
      tokens: { input: 900, output: 90 },
    },
  ];
  const res = await fetch(`${ui.server.baseUrl}/v1/competitions/${C}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runs }),
  });
  expect(res.status).toBe(200);
});

describe('counts of one', () => {
  it('are singular: leaderboard summary, search hint, miner caption, coverage summary', async () => {
    const board = await ui.server.get(`/v1/competitions/${C}/leaderboard`);
    expect(board.miners.filter((m: { rank: number | null }) => m.rank !== null)).toHaveLength(1);
    await ui.open(`#/c/${C}`, '#leaderboard tbody tr');
    const summary = await ui.page.locator('main p.summary').innerText();
    expect(summary).toMatch(/^1 ranked miner ·/);
    expect(summary).toContain('(1 of 1 run)');
    await ui.page.locator('#hotkey-search').fill('solo');
    await expect.poll(() => ui.page.locator('.toolbar .hint').innerText()).toBe('1 of 1 miner match');
    await ui.open(`#/c/${C}/miners/solo`, '#miner-tasks tbody tr');
    expect(await ui.page.locator('#miner-tasks caption').innerText()).toContain('Per-task breakdown: 1 task run');
    await ui.open(`#/c/${C}/coverage`, '#coverage-summary');
    expect(await ui.page.locator('#coverage-summary').innerText()).toMatch(
      /^2 pairs over 1 task and 2 columns \(the baseline and each miner\) · /,
    );
    expect(ui.errors).toEqual([]);
  });
});
