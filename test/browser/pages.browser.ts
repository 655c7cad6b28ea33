// Every page of the dashboard against the demo competition: the numbers are the API's, the
// links, back button and deep links work, the keyboard reaches everything, axe finds nothing
// serious, the console stays clean. Screenshots of each page go to docs/screenshots/.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { expectCell, pct, row, s3, sn } from './expect.js';
import type { Json } from '../support/json.js';

const SHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const QNA_TASK = '6905333b74f22949d97baa22';
const C = '/v1/competitions/demo';

const ui = useDashboard();

beforeAll(() => {
  mkdirSync(SHOTS, { recursive: true });
});

describe('pages show the API numbers', () => {
  it('competitions list names the demo competition with its counts', async () => {
    const { competitions } = await ui.server.get('/v1/competitions');
    await ui.open('', '#competitions tbody tr');
    const cells = ui.page.locator('#competitions tbody tr').first().locator('th, td');
    expect(await cells.nth(0).innerText()).toContain(competitions[0].name);
    expect(await cells.nth(2).innerText()).toBe(competitions[0].counts.tasks.toLocaleString('en'));
    expect(await cells.nth(4).innerText()).toBe(competitions[0].counts.runs.toLocaleString('en'));
    await ui.page.screenshot({ path: `${SHOTS}competitions.png` });
  });

  it('leaderboard rows: rank, S_N to 4 decimals, group scores, resolve rate and final weight as %', async () => {
    const board = await ui.server.get(`${C}/leaderboard`);
    await ui.open('#/c/demo', '#leaderboard tbody tr');
    const table = ui.page.locator('#leaderboard');
    expect(await table.locator('tbody tr').count()).toBe(board.miners.length);
    expect(await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')))).toEqual(
      board.miners.map((m: Json) => m.hotkey),
    );
    for (const m of board.miners) {
      const r = row(table, m.hotkey);
      await expectCell(r.locator('[data-col="rank"]'), String(m.rank ?? '–'));
      await expectCell(r.locator('[data-col="sn"]'), sn(m.normalizedScore), m.normalizedScore);
      for (const g of ['short', 'medium', 'long'])
        await expectCell(r.locator(`[data-col="${g}"]`), sn(m.groupScores[g]), m.groupScores[g] ?? null);
      await expectCell(r.locator('[data-col="resolve"]'), pct(m.resolveRate));
      await expectCell(r.locator('[data-col="weight"]'), pct(m.incentive.finalWeight), m.incentive.finalWeight);
    }
    await ui.page.locator('#chart-sn canvas').first().waitFor();
    await ui.page.locator('#chart-weight canvas').first().waitFor();
    await ui.page.screenshot({ path: `${SHOTS}competition.png` });
  });

  it("a miner's per-task rows: x, y, n, t, r and score as the API computes them", async () => {
    const board = await ui.server.get(`${C}/leaderboard`);
    const hotkey = board.miners[0].hotkey;
    const miner = await ui.server.get(`${C}/miners/${hotkey}`);
    await ui.open(`#/c/demo/miners/${hotkey}`, '#miner-tasks tbody tr');
    const table = ui.page.locator('#miner-tasks');
    expect(await table.locator('tbody tr').count()).toBe(miner.tasks.length);
    for (const t of miner.tasks) {
      const cells = await row(table, t.taskId).locator('th, td').allInnerTexts();
      expect(cells.map((c) => c.trim())).toEqual([
        t.taskId,
        t.stage.replace('_', ' '),
        t.complexity ?? '–',
        String(t.x),
        String(t.y),
        String(t.n),
        String(t.threshold),
        expect.any(String),
        expect.any(String),
        s3(t.r),
        t.zone,
        t.pool.replace('_', ' '),
        s3(t.score),
      ]);
      expect(await row(table, t.taskId).locator('[data-col="score"]').getAttribute('title')).toBe(
        t.score === null ? 'none' : String(t.score),
      );
    }
    expect(await ui.page.locator('#miner-facts').innerText()).toContain(sn(miner.normalizedScore));
    await ui.page.locator('#chart-task-scores canvas').first().waitFor();
    await ui.page.screenshot({ path: `${SHOTS}miner.png` });
  });

  it('a QnA task: every miner, and each criterion with its met and split rates', async () => {
    const task = await ui.server.get(`${C}/tasks/${QNA_TASK}`);
    await ui.open(`#/c/demo/tasks/${QNA_TASK}`, '#task-miners tbody tr');
    const table = ui.page.locator('#task-miners');
    for (const m of task.miners)
      await expectCell(row(table, m.hotkey).locator('[data-col="score"]'), s3(m.score), m.score);
    const criteria = ui.page.locator('#criteria tbody tr');
    expect(await criteria.count()).toBe(task.criteria.length);
    for (const [i, c] of task.criteria.entries()) {
      const text = await criteria.nth(i).innerText();
      expect(text).toContain(`${Math.round(c.metRate * 100)}%`);
      expect(text).toContain(`${Math.round(c.splitRate * 100)}%`);
    }
    expect(await ui.page.locator('.question').innerText()).toContain(task.qna.prompt.slice(0, 60));
    await ui.page.screenshot({ path: `${SHOTS}task.png`, fullPage: true });
  });

  it('weights: final weights by rank, elements with their winners, burn', async () => {
    const [w, board] = await Promise.all([ui.server.get(`${C}/weights`), ui.server.get(`${C}/leaderboard`)]);
    await ui.open('#/c/demo/weights', '#weights-ranked tbody tr');
    const table = ui.page.locator('#weights-ranked');
    for (const m of board.miners.filter((x: Json) => x.rank !== null)) {
      await expectCell(
        row(table, m.hotkey).locator('[data-col="weight"]'),
        pct(w.finalWeights[m.hotkey] ?? 0),
        w.finalWeights[m.hotkey] ?? 0,
      );
    }
    expect(await table.locator('tfoot').innerText()).toContain(pct(w.burnWeight));
    const layers = ui.page.locator('table.layer');
    expect(await layers.count()).toBe(w.layers.length);
    for (const [i, layer] of w.layers.entries()) {
      const rows = layers.nth(i).locator('tbody tr');
      for (const [j, e] of layer.elements.entries()) {
        const text = await rows.nth(j).innerText();
        expect(text).toContain(e.subset.join(' + '));
        for (const h of e.winners) expect(text).toContain(h);
      }
    }
    // The demo's point: rank 3 wins nothing, rank 4 wins elements and is paid.
    const byRank = (r: number) => board.miners.find((m: Json) => m.rank === r).hotkey;
    expect(await row(table, byRank(3)).innerText()).toContain('none');
    expect(w.finalWeights[byRank(4)]).toBeGreaterThan(0);
    await ui.page.screenshot({ path: `${SHOTS}weights.png`, fullPage: true });
    expect(ui.errors).toEqual([]);
  });

  it('weights on chain: once a metagraph is recorded, each uid with its hotkey, weight and u16', async () => {
    const owner = '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM';
    const idle = '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty';
    await ui.server.send('PUT', `${C}/metagraph`, {
      netuid: 1,
      block: 100,
      neurons: [
        { uid: 0, hotkey: owner },
        { uid: 1, hotkey: idle },
      ],
    });
    const chain = await ui.server.get(`${C}/weights/chain`);
    await ui.open('#/c/demo/weights', '#weights-chain tbody tr');
    const rows = ui.page.locator('#weights-chain tbody tr');
    expect(await rows.count()).toBe(Object.keys(chain.floats).length);
    // No demo miner is registered: everything is burned to uid 0, and each is named as burned.
    expect(await rows.first().innerText()).toContain(owner);
    expect(await rows.first().locator('td').last().innerText()).toBe(String(chain.weights[0]));
    const section = await ui.page.locator('section[aria-labelledby="chain-title"]').innerText();
    for (const u of chain.unregistered) expect(section).toContain(u.hotkey);
    expect(section).toContain(idle);
    expect(ui.errors).toEqual([]);
  });
});
