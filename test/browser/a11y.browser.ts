// Each page passes axe-core with no serious or critical violation, and loads with a clean console;
// on a narrow window, a wide box with nothing focusable in it still scrolls by keyboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { launch, type Browser } from './browser.js';
import { startTestServer, type TestServer } from './server.js';
import { settled } from './settled.js';

let server: TestServer;
let browser: Browser;
let sweTask = '';

beforeAll(async () => {
  // axe-core goes in as a script tag, which the dashboard's CSP refuses: this browser bypasses it.
  [server, browser] = await Promise.all([startTestServer('demo'), launch({ bypassCSP: true })]);
  const { tasks } = await server.get('/v1/competitions/demo/tasks');
  sweTask = tasks.find((t: { type: string }) => t.type === 'swebench_verified').id;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const PAGES: [string, string, string][] = [
  ['competitions', '', '#competitions tbody tr'],
  ['competition', '#/c/demo', '#chart-weight canvas'],
  ['miner', '#/c/demo/miners/long-hauler', '#chart-r-tokens canvas'],
  ['QnA task', '#/c/demo/tasks/6905333b74f22949d97baa22', '#criteria tbody tr'],
  ['SWE-bench task', '#/c/demo/tasks/{swe}', '#task-miners tbody tr'],
  ['weights', '#/c/demo/weights', 'table.layer'],
];

describe('accessibility and console', () => {
  it.each(PAGES)('%s page: no serious or critical axe violation, no console error', async (_name, hash, ready) => {
    const { page, errors } = await browser.page();
    await page.goto(`${server.baseUrl}/${hash.replace('{swe}', sweTask)}`);
    await page.locator(ready).first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  // Wide tables scroll in their own box on a narrow window; one without a link or a button in it
  // is reachable by keyboard only if the box itself takes focus (axe: scrollable-region-focusable).
  it.each([
    ['QnA task page (criteria table, prompt)', '#/c/demo/tasks/6905333b74f22949d97baa22', '#criteria'],
    ['coverage page (progress per stage)', '#/c/demo/coverage', '#coverage-stages'],
  ])('%s on a narrow window: wide boxes scroll by keyboard', async (_name, hash, table) => {
    const { page, errors } = await browser.page();
    await page.setViewportSize({ width: 400, height: 800 });
    await page.goto(`${server.baseUrl}/${hash}`);
    await page.locator(`${table} tbody tr`).first().waitFor();
    await settled(page);
    const box = page.locator(`.table-wrap:has(> ${table})`);
    expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await box.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
