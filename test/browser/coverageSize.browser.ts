// The coverage page at the reference size: 300 tasks × 256 miners (less the excluded) and the
// baseline (76,000 cells and more) on one canvas. Measures navigation start to the heatmap drawn (fastest of three
// visits asserted under 2 s, all printed), and checks cells at the far corners against the API.
import { cpus, loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Browser } from './browser.js';
import { REFERENCE, seed256 } from './seed256.js';
import { startTestServer, type TestServer } from './server.js';
import type { Json } from '../support/json.js';

const C = `/v1/competitions/${REFERENCE}`;
const TASKS = 300;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer('empty'), launch()]);
  await seed256(server);
  // Tasks without runs yet still have a pair per miner: they fill the grid up to 300 rows.
  const { tasks } = await server.get(`${C}/tasks`);
  const extra = Array.from({ length: TASKS - tasks.length }, (_, i) => ({
    id: `zz-planned-${String(i).padStart(3, '0')}`,
    type: 'swebench_verified',
    complexity: 'short',
  }));
  await server.send('PUT', `${C}/tasks`, { tasks: extra });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('coverage page at 300 tasks × 256 miners', () => {
  it('draws the heatmap, and the corner cells are the API pairs', async () => {
    const coverage = await server.get(`${C}/coverage?limit=10000`);
    const all: Json[] = [...coverage.pairs];
    for (let cursor = coverage.nextCursor; cursor;) {
      const next = await server.get(`${C}/coverage?limit=10000&cursor=${encodeURIComponent(cursor)}`);
      all.push(...next.pairs);
      cursor = next.nextCursor;
    }
    const tasks = [...new Set(all.map((p) => p.taskId as string))].sort();
    const miners = [...new Set(all.map((p) => p.miner as string))].sort((a, b) =>
      a === 'baseline' ? -1 : b === 'baseline' ? 1 : a < b ? -1 : a > b ? 1 : 0,
    );
    expect(tasks.length).toBe(TASKS);
    // The baseline and every miner that takes part: the excluded ones have no pairs (SPEC 6, 13).
    const board = await server.get(`${C}/leaderboard`);
    const excluded = (board.miners as { excluded: boolean }[]).filter((m) => m.excluded).length;
    expect(excluded).toBeGreaterThan(0);
    expect(miners.length).toBe(1 + 256 - excluded);
    const { page, errors } = await browser.page();
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto('about:blank');
      await page.goto(`${server.baseUrl}/#/c/${REFERENCE}/coverage`, { waitUntil: 'commit' });
      const handle = await page.waitForFunction(
        () =>
          (document.querySelector<HTMLCanvasElement>('#coverage-heatmap canvas')?.width ?? 0) > 0 && performance.now(),
        undefined,
        { polling: 'raf', timeout: 20_000 },
      );
      times.push((await handle.jsonValue()) as number);
    }
    const fastest = Math.min(...times);
    console.log(
      `coverage page, ${tasks.length} × ${miners.length}: heatmap drawn at ${times.map((t) => t.toFixed(0)).join(', ')} ms (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
    );
    expect(fastest).toBeLessThan(2000);

    const canvas = page.locator('#coverage-heatmap canvas');
    const box = (await canvas.boundingBox())!;
    const top = box.y + (await page.evaluate(() => scrollY));
    const cellW = box.width / miners.length;
    const cellH = box.height / tasks.length;
    for (const [r, c] of [
      [0, 0],
      [0, miners.length - 1],
      [tasks.length - 1, 0],
      [tasks.length - 1, miners.length - 1],
    ] as const) {
      const y = top + (r + 0.5) * cellH;
      await page.evaluate((to) => scrollTo(0, to - 300), y);
      await page.mouse.move(box.x + (c + 0.5) * cellW, y - (await page.evaluate(() => scrollY)));
      const tip = page.locator('#coverage-tip');
      expect([await tip.getAttribute('data-task'), await tip.getAttribute('data-miner')]).toEqual([
        tasks[r],
        miners[c],
      ]);
      const pair = all.find((p) => p.taskId === tasks[r] && p.miner === miners[c])!;
      expect(Number(await tip.locator('[data-field="have"]').innerText())).toBe(pair.have);
      expect(Number(await tip.locator('[data-field="planned"]').innerText())).toBe(pair.planned);
    }
    expect(errors).toEqual([]);
  });
});
