// The criteria stability page against the API (SPEC 12): every number of its tables and plot is
// the report's, for the pooled runs, the baseline and each miner; the competition's tabs link to
// it; axe finds nothing serious.
import { describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { seriousViolations } from './axe.js';
import type { Json } from '../support/json.js';

const C = '/v1/competitions/demo';

const ui = useDashboard({ bypassCSP: true });

const n = (v: number) => v.toLocaleString('en');
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const label = (g: Json) => `${g.change ?? 'unchanged'}/${g.polarity}`;

describe('criteria stability page', () => {
  it('is linked from the competition page', async () => {
    await ui.open('#/c/demo', '#leaderboard tbody tr');
    await ui.page.getByRole('link', { name: 'Criteria' }).click();
    await ui.page.locator('#criteria-report tbody tr').first().waitFor();
    expect(ui.page.url()).toContain('#/c/demo/criteria');
  });

  it('the table, the miners table and the plot are the API report, exactly', async () => {
    const report = await ui.server.get(`${C}/criteria/report`);
    // The demo grades its QnA runs under the shipped judge: the report has verdicts to show.
    expect(report.groups.length).toBeGreaterThan(1);
    expect(report.groups[0].pooled.verdicts).toBeGreaterThan(0);
    await ui.open('#/c/demo/criteria', '#criteria-report tbody tr');

    const rows = ui.page.locator('#criteria-report tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).toEqual(
      report.groups.map(label),
    );
    for (const g of report.groups) {
      const row = ui.page.locator(`#criteria-report tbody tr[data-key="${label(g)}"]`);
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
      await ui.page
        .locator('#criteria-miners tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key'))),
    ).toEqual(miners);
    for (const hotkey of miners) {
      for (const g of report.groups) {
        const s = g.miners[hotkey];
        const text = await ui.page
          .locator(`#criteria-miners tbody tr[data-key="${hotkey}"] [data-col="${label(g)}"]`)
          .innerText();
        expect(text).toBe(`${n(s.verdicts)} · ${pct(s.metRate)} · ${pct(s.splitRate)}`);
      }
    }

    for (const g of report.groups) {
      const bars = ui.page.locator(`#criteria-plot [data-group="${label(g)}"]`);
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
    const report = await ui.server.get(`${C}/criteria/report?stages=evaluation`);
    await ui.open('#/c/demo/criteria?stages=evaluation', '#criteria-report tbody tr, #no-criteria');
    const shown = await ui.page.locator('#criteria-report tbody tr [data-col="pooled-verdicts"]').allInnerTexts();
    expect(shown).toEqual(report.groups.map((g: Json) => n(g.pooled.verdicts)));
  });

  it('axe finds no serious violation, the console stays clean', async () => {
    await ui.open('#/c/demo/criteria', '#criteria-plot svg');
    expect(await seriousViolations(ui.page)).toEqual([]);
    expect(ui.errors).toEqual([]);
  });
});
