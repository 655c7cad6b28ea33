// The coverage page against the API: the heatmap cell under the pointer is the API's pair, the
// progress per stage is the API's summary per stage; a stage set with no tasks says so on the
// leaderboard, weights and coverage pages instead of rows of dashes; axe finds nothing serious.
import { describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { seriousViolations } from './axe.js';
import type { Json } from '../support/json.js';

const C = '/v1/competitions/demo';
const STAGES = ['screener_1', 'screener_2', 'evaluation'];

const ui = useDashboard({ bypassCSP: true });

describe('coverage page', () => {
  it('the heatmap cell under the pointer is the API pair, with its exact numbers', async () => {
    const coverage = await ui.server.get(`${C}/coverage?limit=10000`);
    expect(coverage.nextCursor).toBeNull();
    const byKey = new Map<string, Json>(coverage.pairs.map((p: Json) => [`${p.taskId}\u0000${p.miner}`, p]));
    const tasks = [...new Set<string>(coverage.pairs.map((p: Json) => p.taskId))].sort();
    const miners = [...new Set<string>(coverage.pairs.map((p: Json) => p.miner))];
    await ui.open('#/c/demo/coverage', '#coverage-heatmap canvas');
    const canvas = ui.page.locator('#coverage-heatmap canvas');
    const box = (await canvas.boundingBox())!;
    const top = box.y + (await ui.page.evaluate(() => scrollY));
    const cellW = box.width / miners.length;
    const cellH = box.height / tasks.length;
    // Corners, the middle, and a spread of cells between them.
    const spots: [number, number][] = [
      [0, 0],
      [tasks.length - 1, miners.length - 1],
      [Math.floor(tasks.length / 2), Math.floor(miners.length / 2)],
    ];
    for (let i = 1; i <= 12; i++) spots.push([(i * 7) % tasks.length, (i * 5) % miners.length]);
    const seen = new Set<string>();
    for (const [r, c] of spots) {
      // The page scrolls the cell's row to the middle of the window, then the pointer goes there.
      const y = top + (r + 0.5) * cellH;
      await ui.page.evaluate((to) => scrollTo(0, to - 300), y);
      await ui.page.mouse.move(box.x + (c + 0.5) * cellW, y - (await ui.page.evaluate(() => scrollY)));
      const tip = ui.page.locator('#coverage-tip');
      await tip.waitFor();
      const task = (await tip.getAttribute('data-task'))!;
      const miner = (await tip.getAttribute('data-miner'))!;
      const pair = byKey.get(`${task}\u0000${miner}`);
      expect(pair, `${task} × ${miner}`).toBeDefined();
      expect(task).toBe(tasks[r]);
      if (c === 0) expect(miner).toBe('baseline');
      const field = async (f: string) => Number(await tip.locator(`[data-field="${f}"]`).innerText());
      expect({ have: await field('have'), planned: await field('planned'), missing: await field('missing') }).toEqual({
        have: pair.have,
        planned: pair.planned,
        missing: pair.missing,
      });
      seen.add(`${task}\u0000${miner}`);
    }
    // Distinct cells under distinct spots: the pointer's position picks the cell.
    expect(seen.size).toBe(new Set(spots.map(([r, c]) => `${r},${c}`)).size);
    await ui.page.mouse.move(0, 0);
    await ui.page.locator('#coverage-tip').waitFor({ state: 'detached' });
  });

  it('the summary and the progress per stage are the API summaries', async () => {
    await ui.open('#/c/demo/coverage', '#coverage-stages tbody tr');
    for (const stage of STAGES) {
      const { summary } = await ui.server.get(`${C}/coverage?stages=${stage}&limit=1`);
      const cells = await ui.page.locator(`#coverage-stages tbody tr[data-key="${stage}"] td`).allInnerTexts();
      expect(cells.slice(0, 4)).toEqual(
        [summary.pairs, summary.planned, summary.have, summary.missing].map((n: number) => n.toLocaleString('en')),
      );
    }
    const { summary } = await ui.server.get(`${C}/coverage?limit=1`);
    expect(await ui.page.locator('#coverage-summary').innerText()).toContain(
      `${summary.have.toLocaleString('en')} of ${summary.planned.toLocaleString('en')} planned runs in`,
    );
  });

  it('axe finds no serious violation, the console stays clean', async () => {
    await ui.open('#/c/demo/coverage', '#coverage-heatmap canvas');
    expect(await seriousViolations(ui.page)).toEqual([]);
    expect(ui.errors).toEqual([]);
  });
});

describe('a stage set with no tasks', () => {
  it('leaderboard, weights and coverage pages show the empty-stage message, no rows of dashes', async () => {
    const { tasks } = await ui.server.get(`${C}/tasks`);
    const empty = STAGES.find((s) => !tasks.some((t: Json) => t.stage === s));
    expect(empty, 'the demo leaves one stage without tasks').toBeDefined();
    expect((await ui.server.get(`${C}/coverage?stages=${empty}&limit=1`)).summary.pairs).toBe(0);
    for (const p of ['', '/weights', '/coverage']) {
      await ui.open(`#/c/demo${p}?stages=${empty}`, '#empty-stage');
      expect(await ui.page.locator('#empty-stage').innerText()).toContain('No tasks in the chosen stages');
      expect(await ui.page.locator('main table tbody tr').count()).toBe(p === '/coverage' ? STAGES.length : 0);
      expect(await ui.page.locator('main canvas').count()).toBe(0);
    }
    // A stage set with tasks has no such message.
    await ui.open('#/c/demo', '#leaderboard tbody tr');
    expect(await ui.page.locator('#empty-stage').count()).toBe(0);
  });
});
