// The weights-over-time page equals `/weights/history`; the validators page shows each one's last
// heartbeat, version and silence as the API does; the leaderboard caption follows the sort; axe
// finds nothing serious on the new pages.
import { describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { seriousViolations } from './axe.js';
import { pct } from './expect.js';
import type { Json } from '../support/json.js';

const C = '/v1/competitions/demo';

const ui = useDashboard({ bypassCSP: true });

describe('weights over time', () => {
  it('before any snapshot the page says so', async () => {
    expect((await ui.server.get(`${C}/weights/history`)).history).toEqual([]);
    await ui.open('#/c/demo/weights/history', '#no-snapshots');
  });

  it('the table and the chart hold the snapshots of /weights/history, a column per top miner and the burn', async () => {
    // Three snapshots under different burn ratios, so the lines move.
    const { name } = await ui.server.get(C);
    for (const burnRatio of [0.2, 0.5, 0.1]) {
      await ui.server.send('PUT', C, { name, burnRatio });
      await ui.server.send('POST', `${C}/snapshots`, { note: `burn ${burnRatio}` });
    }
    const { history } = await ui.server.get(`${C}/weights/history`);
    expect(history).toHaveLength(3);
    // The page is open from the test before, and a snapshot sends no live event (only scores do):
    // a fresh load reads them.
    await ui.page.reload();
    await ui.page.locator('#weights-history tbody tr').first().waitFor();
    const headers = await ui.page
      .locator('#weights-history thead th[data-hotkey]')
      .evaluateAll((ths) => ths.map((th) => th.getAttribute('data-hotkey')!));
    // The miners of the chart: the largest final weight in any snapshot, largest first.
    const best = new Map<string, number>();
    for (const h of history)
      for (const [k, w] of Object.entries<number>(h.finalWeights)) best.set(k, Math.max(best.get(k) ?? 0, w));
    const ranked = [...best].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    expect(headers).toEqual(ranked.slice(0, 6).map(([k]) => k));
    const rows = ui.page.locator('#weights-history tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).toEqual(
      history.map((h: Json) => String(h.seq)),
    );
    for (const h of history) {
      const cells = ui.page.locator(`#weights-history tbody tr[data-key="${h.seq}"] td`);
      const texts = (await cells.allInnerTexts()).map((t) => t.trim());
      expect(texts).toEqual([
        h.takenAt.replace('T', ' ').replace(/(\.\d+)?Z$/, ''),
        ...headers.map((k) => pct(h.finalWeights[k] ?? 0)),
        pct(h.burnWeight),
      ]);
      expect(await cells.last().getAttribute('title')).toBe(String(h.burnWeight));
    }
    // The chart draws one series per column: the miners, then the burn.
    await ui.page.locator('#chart-weights-history canvas').first().waitFor();
    const legend = await ui.page.locator('#chart-weights-history .u-legend .u-series .u-label').allInnerTexts();
    expect(legend.slice(1)).toEqual([...headers, 'burned']);
    expect(await seriousViolations(ui.page)).toEqual([]);
  });
});

describe('validators page', () => {
  it('last seen, version and a silent validator marked, as the API says', async () => {
    const { validators } = await ui.server.get(`${C}/validators`);
    expect(validators.length).toBeGreaterThan(0);
    await ui.open('#/c/demo/validators', '#validators tbody tr');
    for (const v of validators) {
      const r = ui.page.locator(`#validators tbody tr[data-key="${v.id}"]`);
      expect((await r.locator('[data-col="lastSeen"]').innerText()).trim()).toBe(
        v.lastSeen ? v.lastSeen.replace('T', ' ').replace(/(\.\d+)?Z$/, '') : 'never',
      );
      expect((await r.locator('[data-col="version"]').innerText()).trim()).toBe(v.version ?? '–');
      expect((await r.locator('[data-col="status"]').innerText()).includes('silent')).toBe(v.silent);
    }
    expect(validators.some((v: Json) => v.silent)).toBe(true);
    expect(await seriousViolations(ui.page)).toEqual([]);
  });
});

describe('leaderboard fixes', () => {
  it('the caption names the column the rows are sorted by', async () => {
    await ui.open('#/c/demo', '#leaderboard tbody tr');
    const caption = ui.page.locator('#leaderboard caption');
    expect(await caption.innerText()).toContain('S_N descending');
    await ui.page.locator('#leaderboard button[data-sort="hotkey"]').click();
    await ui.page.waitForFunction(() => location.hash.includes('sort=hotkey'));
    expect(await caption.innerText()).toContain('Hotkey ascending');
    expect(await caption.innerText()).not.toContain('S_N descending');
    await ui.page.locator('#leaderboard button[data-sort="resolve"]').click();
    await ui.page.waitForFunction(() => location.hash.includes('sort=resolve'));
    expect(await caption.innerText()).toContain('Resolve rate descending');
    expect(ui.errors).toEqual([]);
  });
});
