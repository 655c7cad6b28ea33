// The dashboard's Content Security Policy allows no inline style (src/plugins/dashboard.ts): Preact
// and uPlot set styles through the CSSOM (element.style), which a policy does not govern, and the
// app's CSS is its stylesheet. Every page, its charts drawn, hovered and a table sorted, runs under
// the policy with no refusal and no console error.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { settled } from './settled.js';

const C = '/v1/competitions/demo';
const QNA_TASK = '6905333b74f22949d97baa22';

const ui = useDashboard();
let sweTask = '';
let hotkey = '';

beforeAll(async () => {
  const { tasks } = await ui.server.get(`${C}/tasks`);
  sweTask = tasks.find((t: { type: string }) => t.type === 'swebench_verified').id;
  // Two snapshots, so weights over time and the miner's history draw their charts.
  const { name } = await ui.server.get(C);
  for (const burnRatio of [0.2, 0.5]) {
    await ui.server.send('PUT', C, { name, burnRatio });
    await ui.server.send('POST', `${C}/snapshots`, { note: `burn ${burnRatio}` });
  }
  hotkey = (await ui.server.get(`${C}/leaderboard`)).miners[0].hotkey;
});

/** Records the page's CSP refusals from its first script on. */
async function watch(page: Page) {
  await page.addInitScript(() => {
    const w = window as unknown as { violations: string[] };
    w.violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
    );
  });
}

/** Moves the pointer across every chart and the heatmap: uPlot's cursor and legend, the tooltip. */
async function hover(page: Page) {
  for (const target of await page.locator('.u-over, #coverage-heatmap canvas').all()) {
    const box = await target.boundingBox();
    if (!box) continue;
    // Near the top: the heatmap can be taller than the window.
    for (const f of [0.25, 0.5, 0.75])
      await target.hover({ position: { x: box.width * f, y: Math.min(box.height * f, 40) } });
  }
}

describe('Content Security Policy', () => {
  it("index.html's policy allows no inline style or script", async () => {
    const res = await fetch(`${ui.server.baseUrl}/`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/(^|; )style-src 'self'(;|$)/);
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(csp).not.toContain("'unsafe-inline'");
    expect(csp).not.toContain("'unsafe-eval'");
  });

  it('every page draws, hovers and sorts under it: no refusal, no console error', async () => {
    const pages: [string, string][] = [
      ['', '#competitions tbody tr'],
      ['#/c/demo', '#chart-weight canvas'],
      [`#/c/demo/miners/${hotkey}`, '#chart-history canvas'],
      [`#/c/demo/tasks/${QNA_TASK}`, '#criteria tbody tr'],
      [`#/c/demo/tasks/${sweTask}`, '#task-miners tbody tr'],
      ['#/c/demo/weights', 'table.layer'],
      ['#/c/demo/weights/history', '#chart-weights-history canvas'],
      ['#/c/demo/validators', '#validators tbody tr'],
      ['#/c/demo/coverage', '#coverage-heatmap canvas'],
      ['#/c/demo/criteria', '#criteria-plot svg'],
      ['#/nowhere', 'main h1'],
    ];
    const { page, errors } = await ui.browser.page();
    await watch(page);
    for (const [hash, ready] of pages) {
      await page.goto('about:blank');
      await page.goto(`${ui.server.baseUrl}/${hash}`);
      await page.locator(ready).first().waitFor();
      await settled(page);
      await hover(page);
      if (hash === '#/c/demo/coverage') expect(await page.locator('#coverage-tip').count()).toBe(1);
      const sort = page.locator('main table button[data-sort]').first();
      if (await sort.count()) await sort.click();
      const seen = await page.evaluate(() => (window as unknown as { violations: string[] }).violations);
      expect(seen, hash).toEqual([]);
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
