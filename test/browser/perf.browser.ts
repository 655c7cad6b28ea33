// First render of the competition page with 256 miners: from navigation start to the full
// leaderboard and both charts on screen, with nothing in the browser's cache. Target 1 s. Five
// visits; the fastest is asserted, since other work on a shared machine only ever adds time
// (here the load average is often 10 on 2 cores), and the median is printed beside it.
import { cpus, loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Browser } from './browser.js';
import { REFERENCE, seed256 } from './seed256.js';
import { startTestServer, type TestServer } from './server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer('empty'), launch()]);
  const started = performance.now();
  await seed256(server);
  console.log(`seeded 256 miners over HTTP in ${Math.round(performance.now() - started)} ms`);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Milliseconds from the document's navigation start until `rows` rows and two charts are drawn. */
async function firstRender(page: import('playwright-core').Page, url: string, rows: number): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    (n) =>
      document.querySelectorAll('#leaderboard tbody tr').length === n &&
      document.querySelectorAll('.charts canvas').length >= 2 &&
      performance.now(),
    rows,
    { polling: 'raf', timeout: 10_000 },
  );
  return (await handle.jsonValue()) as number;
}

describe('competition page with 256 miners', () => {
  it('renders the whole leaderboard and its charts in under 1 s (fastest of 5 first visits; median printed)', async () => {
    const board = await server.get(`/v1/competitions/${REFERENCE}/leaderboard`);
    expect(board.miners.length).toBe(256);
    await server.get(`/v1/competitions/${REFERENCE}`); // the server's first read of each route is not the page's cost
    const { page, errors } = await browser.page();
    const cdp = await browser.context.newCDPSession(page);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.goto('about:blank');
      await cdp.send('Network.clearBrowserCache'); // a first visit: nothing cached
      times.push(await firstRender(page, `${server.baseUrl}/#/c/${REFERENCE}`, 256));
    }
    const sorted = [...times].sort((a, b) => a - b);
    const [fastest, median] = [sorted[0]!, sorted[2]!];
    const load = loadavg()[0]!.toFixed(1);
    console.log(
      `competition page, 256 miners: first render ${times.map((t) => t.toFixed(0)).join(', ')} ms; fastest ${fastest.toFixed(0)} ms, median ${median.toFixed(0)} ms (load average ${load} on ${cpus().length} cores)`,
    );
    expect(fastest).toBeLessThan(1000);
    expect(errors).toEqual([]);
  });
});
