// Moving around as a person does: clicks from the leaderboard to a miner to a task, the back
// button, deep links, sorting and searching kept in the URL, and all of it from the keyboard.
import { describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { row, s3 } from './expect.js';
import type { Json } from '../support/json.js';

const ui = useDashboard();

const hash = () => ui.page.evaluate(() => decodeURIComponent(location.hash));
const heading = () => ui.page.locator('main h1').innerText();
const focused = () =>
  ui.page.evaluate(() => {
    const el = document.activeElement;
    return el
      ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}:${(el.textContent ?? '').trim().slice(0, 60)}`
      : '';
  });

describe('clicks, back button and deep links', () => {
  it('leaderboard -> miner -> task, then back twice, without reloading the document', async () => {
    const board = await ui.server.get('/v1/competitions/demo/leaderboard');
    const top = board.miners[0].hotkey;
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await ui.page.evaluate(() => ((window as Json).sameDocument = true));
    await row(ui.page.locator('#leaderboard'), top).getByRole('link', { name: top }).click();
    await ui.page.locator('#miner-tasks tbody tr').first().waitFor();
    expect(await hash()).toBe(`#/c/demo/miners/${top}`);
    expect(await heading()).toContain(top);

    const task = (await ui.server.get(`/v1/competitions/demo/miners/${top}`)).tasks[0];
    await ui.page.locator('#miner-tasks tbody tr').first().getByRole('link').click();
    await ui.page.locator('#task-miners tbody tr').first().waitFor();
    expect(await hash()).toBe(`#/c/demo/tasks/${task.taskId}`);
    expect(await heading()).toContain(task.taskId);
    expect((await row(ui.page.locator('#task-miners'), top).locator('[data-col="score"]').innerText()).trim()).toBe(
      s3(task.score),
    );

    await ui.page.goBack();
    await ui.page.locator('#miner-tasks').waitFor();
    expect(await heading()).toContain(top);
    await ui.page.goBack();
    await ui.page.locator('#leaderboard').waitFor();
    expect(await hash()).toBe('#/c/demo');
    expect(await ui.page.evaluate(() => (window as Json).sameDocument)).toBe(true);
  });

  it('a deep link with a stage set opens that page with those stages, read with them', async () => {
    const fresh = await ui.browser.page();
    const task = await ui.server.get('/v1/competitions/demo/tasks/6905333b74f22949d97baa22?stages=evaluation');
    await fresh.page.goto(`${ui.server.baseUrl}/#/c/demo/tasks/6905333b74f22949d97baa22?stages=evaluation`);
    await fresh.page.locator('#task-miners tbody tr').first().waitFor();
    expect(await fresh.page.locator('main h1').innerText()).toContain('6905333b74f22949d97baa22');
    expect(await fresh.page.locator('input[value="evaluation"]').isChecked()).toBe(true);
    expect(await fresh.page.locator('input[value="screener_2"]').isChecked()).toBe(false);
    const first = task.miners[0];
    expect(
      (await row(fresh.page.locator('#task-miners'), first.hotkey).locator('[data-col="score"]').innerText()).trim(),
    ).toBe(s3(first.score));
    // Its links carry the stage set on.
    expect(await fresh.page.getByRole('link', { name: 'Weights', exact: true }).getAttribute('href')).toBe(
      '#/c/demo/weights?stages=evaluation',
    );
    expect(await fresh.page.getByRole('link', { name: 'Weights over time' }).getAttribute('href')).toBe(
      '#/c/demo/weights/history?stages=evaluation',
    );
    expect(await fresh.page.getByRole('link', { name: 'Coverage' }).getAttribute('href')).toBe(
      '#/c/demo/coverage?stages=evaluation',
    );
    expect(fresh.errors).toEqual([]);
    await fresh.page.close();
  });

  it('an unknown page says so and links home; an unknown competition says 404', async () => {
    const other = await ui.browser.page();
    await other.page.goto(`${ui.server.baseUrl}/#/nowhere`);
    expect(await other.page.locator('main h1').innerText()).toBe('Page not found');
    expect(await other.page.getByRole('link', { name: 'All competitions' }).getAttribute('href')).toBe('#/');
    await other.page.goto(`${ui.server.baseUrl}/#/c/no-such-competition`);
    await other.page.locator('[role="alert"]').first().waitFor();
    expect(await other.page.locator('[role="alert"]').first().innerText()).toContain('404');
    // The browser logs the 404s of that competition's reads, and nothing else.
    expect(other.errors.filter((e) => !e.includes('/v1/competitions/no-such-competition'))).toEqual([]);
    await other.page.close();
  });
});

describe('sorting and searching, kept in the URL', () => {
  it('sorting by S_N ascending reverses the ranked order, and the URL says so', async () => {
    const board = await ui.server.get('/v1/competitions/demo/leaderboard');
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    await ui.page.locator('button[data-sort="sn"]').click(); // numbers sort high to low first
    await ui.page.locator('button[data-sort="sn"]').click();
    expect(await ui.page.locator('th:has(button[data-sort="sn"])').getAttribute('aria-sort')).toBe('ascending');
    expect(await hash()).toBe('#/c/demo?sort=sn&dir=asc');
    const keys = await ui.page
      .locator('#leaderboard tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(keys).toEqual(
      board.miners
        .filter((m: Json) => m.normalizedScore !== null)
        .reverse()
        .map((m: Json) => m.hotkey),
    );
    await ui.page.reload();
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    expect(await ui.page.locator('th:has(button[data-sort="sn"])').getAttribute('aria-sort')).toBe('ascending');
  });

  it('"/" focuses the hotkey search; typing filters the rows; Escape clears', async () => {
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    await ui.page.locator('body').click({ position: { x: 5, y: 300 } });
    await ui.page.keyboard.press('/');
    expect(await focused()).toMatch(/^input#hotkey-search/);
    await ui.page.keyboard.type('frugal');
    expect(await ui.page.locator('#leaderboard tbody tr').count()).toBe(1);
    expect(await hash()).toContain('q=frugal');
    await ui.page.keyboard.press('Escape');
    expect(await ui.page.locator('#leaderboard tbody tr').count()).toBe(8);
  });
});

describe('keyboard', () => {
  it('skip link, then Tab to a miner link and Enter opens it with focus on its heading', async () => {
    await ui.page.goto('about:blank'); // a fresh document: focus starts at the top
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    await ui.page.keyboard.press('Tab');
    expect(await focused()).toContain('Skip to content');
    await ui.page.keyboard.press('Enter');
    expect(await focused()).toMatch(/^main#main/);
    let guard = 0;
    while (
      !(await focused()).startsWith('a:') ||
      !(await ui.page.evaluate(() => document.activeElement?.classList.contains('hotkey')))
    ) {
      await ui.page.keyboard.press('Tab');
      if (++guard > 40) throw new Error(`no miner link reached by Tab; focus on ${await focused()}`);
    }
    const name = (await ui.page.evaluate(() => document.activeElement?.textContent)) ?? '';
    await ui.page.keyboard.press('Enter');
    await ui.page.locator('#miner-tasks').waitFor();
    expect(await focused()).toMatch(/^h1:Miner/);
    expect(await heading()).toContain(name);
  });

  it('a sort header and a stage checkbox work from the keyboard', async () => {
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    await ui.page.locator('button[data-sort="hotkey"]').focus();
    await ui.page.keyboard.press('Enter');
    expect(await ui.page.locator('th:has(button[data-sort="hotkey"])').getAttribute('aria-sort')).toBe('ascending');
    await ui.page.locator('input[value="screener_1"]').focus();
    await ui.page.keyboard.press('Space');
    await ui.page.waitForFunction(() => location.hash.includes('stages='));
    expect(await hash()).toContain('stages=screener_1,screener_2,evaluation');
    expect(ui.errors).toEqual([]);
  });
});
