// The criteria stability page against the API (SPEC 12): every number of its tables and plot is
// the report's, for the pooled runs, the baseline and each miner; the competition's tabs link to
// it; axe finds nothing serious.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { launch, type Browser } from './browser.js';
import { startTestServer, type TestServer } from './server.js';
import type { Json } from '../support/json.js';

const C = '/v1/competitions/demo';

let server: TestServer;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  // axe-core goes in as a script tag, which the dashboard's CSP refuses: this browser bypasses it.
  [server, browser] = await Promise.all([startTestServer('demo'), launch({ bypassCSP: true })]);
  ({ page, errors } = await browser.page());
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const open = async (hash: string, ready: string) => {
  await page.goto(`${server.baseUrl}/${hash}`);
  await page.locator(ready).first().waitFor();
};
const n = (v: number) => v.toLocaleString('en');
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const label = (g: Json) => `${g.change ?? 'unchanged'}/${g.polarity}`;

describe('criteria stability page', () => {
  it('is linked from the competition page', async () => {
    await open('#/c/demo', '#leaderboard tbody tr');
    await page.getByRole('link', { name: 'Criteria' }).click();
    await page.locator('#criteria-report tbody tr').first().waitFor();
    expect(page.url()).toContain('#/c/demo/criteria');
  });

  it('the table, the miners table and the plot are the API report, exactly', async () => {
    const report = await server.get(`${C}/criteria/report`);
    // The demo grades its QnA runs under the shipped judge: the report has verdicts to show.
    expect(report.groups.length).toBeGreaterThan(1);
    expect(report.groups[0].pooled.verdicts).toBeGreaterThan(0);
    await open('#/c/demo/criteria', '#criteria-report tbody tr');

    const rows = page.locator('#criteria-report tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).toEqual(
      report.groups.map(label),
    );
    for (const g of report.groups) {
      const row = page.locator(`#criteria-report tbody tr[data-key="${label(g)}"]`);
      const cell = (col: string) => row.locator(`[data-col="${col}"]`);
      expect(await cell('criteria').innerText()).toBe(n(g.criteria));
      for (const who of ['pooled', 'baseline'] as const) {
        const s = g[who];
        expect(await cell(`${who}-verdicts`).innerText()).toBe(n(s.verdicts));
        expect(await cell(`${who}-met`).getAttribute('title')).toBe(s.metRate === null ? 'none' : String(s.metRate));
        expect(await cell(`${who}-met`).innerText()).toBe(`${pct(s.metRate)} (${n(s.met)})`);
        expect(await cell(`${who}-split`).getAttribute('title')).toBe(
          s.splitRate === null ? 'none' : String(s.splitRate),
        );
        expect(await cell(`${who}-split`).innerText()).toBe(`${pct(s.splitRate)} (${n(s.split)})`);
        expect(s.met).toBe(Math.round((s.metRate ?? 0) * s.verdicts));
      }
    }

    const miners = Object.keys(report.groups[0].miners);
    expect(miners.length).toBeGreaterThan(0);
    expect(
      await page
        .locator('#criteria-miners tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key'))),
    ).toEqual(miners);
    for (const hotkey of miners) {
      for (const g of report.groups) {
        const s = g.miners[hotkey];
        const text = await page
          .locator(`#criteria-miners tbody tr[data-key="${hotkey}"] [data-col="${label(g)}"]`)
          .innerText();
        expect(text).toBe(`${n(s.verdicts)} · ${pct(s.metRate)} · ${pct(s.splitRate)}`);
      }
    }

    for (const g of report.groups) {
      const bars = page.locator(`#criteria-plot [data-group="${label(g)}"]`);
      const p = g.pooled;
      expect(await bars.locator('.plot-met text').textContent()).toBe(
        `met ${pct(p.metRate)} (${n(p.met)} of ${n(p.verdicts)})`,
      );
      expect(await bars.locator('.plot-split text').textContent()).toBe(
        `split ${pct(p.splitRate)} (${n(p.split)} of ${n(p.verdicts)})`,
      );
      // Bar lengths follow the rates: 300 units is 100%.
      expect(Number(await bars.locator('.plot-met rect').getAttribute('width'))).toBeCloseTo((p.metRate ?? 0) * 300, 6);
      expect(Number(await bars.locator('.plot-split rect').getAttribute('width'))).toBeCloseTo(
        (p.splitRate ?? 0) * 300,
        6,
      );
    }
  });

  it("a chosen stage set shows that set's numbers from the API", async () => {
    const report = await server.get(`${C}/criteria/report?stages=evaluation`);
    await open('#/c/demo/criteria?stages=evaluation', '#criteria-report tbody tr, #no-criteria');
    const shown = await page.locator('#criteria-report tbody tr [data-col="pooled-verdicts"]').allInnerTexts();
    expect(shown).toEqual(report.groups.map((g: Json) => n(g.pooled.verdicts)));
  });

  it('axe finds no serious violation, the console stays clean', async () => {
    await open('#/c/demo/criteria', '#criteria-plot svg');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
