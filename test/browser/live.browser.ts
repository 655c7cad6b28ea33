// Live updates: an open leaderboard shows a run posted after it loaded, without a reload, by way
// of GET /v1/competitions/{id}/events (Server-Sent Events, API.md 1.1).
//
// NOTE for the lead: this test needs the server's /events route, which is being added on main.
// Until that route is merged into this branch it fails at "the page subscribes" (the stream
// answers 404 and the page shows "live updates off"); the dashboard side is written to the
// contract and needs no change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Browser } from './browser.js';
import { row } from './expect.js';
import { startTestServer, type TestServer } from './server.js';
import type { Json } from '../support/json.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer('demo'), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('live leaderboard', () => {
  it('a run posted while the page is open appears on it without a reload', async () => {
    const { page, errors } = await browser.page();
    await page.goto(`${server.baseUrl}/#/c/demo`);
    await page.locator('#leaderboard tbody tr').first().waitFor();
    await page.evaluate(() => ((window as Json).notReloaded = true));
    // The page subscribes: the badge turns "live" once the stream is open.
    await page.locator('[data-live="live"]').waitFor({ timeout: 5_000 });

    const { tasks } = await server.get('/v1/competitions/demo/tasks');
    const taskId = tasks.find((t: { type: string }) => t.type === 'swebench_verified').id;
    await server.send('POST', '/v1/competitions/demo/runs', {
      runs: [
        {
          runId: 'live-1',
          taskId,
          kind: 'miner',
          minerHotkey: 'late-arrival',
          resolved: true,
          tokens: { input: 1000, output: 100 },
        },
      ],
    });
    const board = await server.get('/v1/competitions/demo/leaderboard');
    const entry = board.miners.find((m: { hotkey: string }) => m.hotkey === 'late-arrival');

    const newRow = row(page.locator('#leaderboard'), 'late-arrival');
    await newRow.waitFor({ timeout: 5_000 });
    expect((await newRow.locator('[data-col="rank"]').innerText()).trim()).toBe(String(entry.rank));
    expect(await page.locator('#leaderboard tbody tr').count()).toBe(board.miners.length);
    expect(await page.evaluate(() => (window as Json).notReloaded)).toBe(true);
    expect(errors).toEqual([]);
  });
});
