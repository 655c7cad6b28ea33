// A server whose reads need a token (SCORING_READS_REQUIRE_TOKEN=true): the dashboard asks for one,
// keeps it for the tab in sessionStorage, reads (and follows live updates) with it, never puts it
// in a URL, says when it is refused, and forgets it on request.
import { beforeAll, describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { SERVER_ADMIN_TOKEN } from '../support/serverProcess.js';
import { seriousViolations } from './axe.js';

const ui = useDashboard({ env: { SCORING_READS_REQUIRE_TOKEN: 'true' }, bypassCSP: true });
const urls: string[] = [];

beforeAll(() => {
  ui.page.on('request', (r) => urls.push(r.url()));
});

const form = () => ui.page.locator('form.token-form');
const submit = async (token: string) => {
  await ui.page.locator('#read-token').fill(token);
  await Promise.all([
    ui.page.waitForEvent('load'),
    ui.page.getByRole('button', { name: 'Read with this token' }).click(),
  ]);
};

describe('a dashboard on a server whose reads need a token', () => {
  it('asks for the token with a labelled form, axe clean', async () => {
    await ui.page.goto(`${ui.server.baseUrl}/#/c/demo`);
    await form().waitFor();
    expect(await form().innerText()).toContain('Reads on this server need a token');
    expect(await ui.page.getByLabel('Read token').getAttribute('type')).toBe('password');
    expect(await seriousViolations(ui.page)).toEqual([]);
  });

  it('says so when the token is refused, and holds it for the tab only', async () => {
    await submit('not-the-token');
    await form().waitFor();
    expect(await form().innerText()).toContain('The server refused the token this tab holds');
    expect(await ui.page.evaluate(() => sessionStorage.getItem('swe-scoring.readToken'))).toBe('not-the-token');
    expect(await ui.page.evaluate(() => localStorage.length)).toBe(0);
  });

  it('reads the leaderboard and follows live updates with the token, which no URL carries', async () => {
    await submit(SERVER_ADMIN_TOKEN);
    const board = await ui.server.get('/v1/competitions/demo/leaderboard');
    await ui.page.locator('#leaderboard tbody tr').first().waitFor();
    expect(await ui.page.locator('#leaderboard tbody tr').count()).toBe(board.miners.length);
    await ui.page.locator('[data-live="live"]').waitFor({ timeout: 5_000 });
    expect(ui.page.url()).not.toContain(SERVER_ADMIN_TOKEN);
    expect(urls.filter((u) => u.includes(SERVER_ADMIN_TOKEN))).toEqual([]);
    expect(urls.some((u) => u.endsWith('/v1/competitions/demo/events'))).toBe(true);
  });

  it('forgets the token on request, and asks again', async () => {
    await Promise.all([
      ui.page.waitForEvent('load'),
      ui.page.getByRole('button', { name: 'Forget read token' }).click(),
    ]);
    await form().waitFor();
    expect(await ui.page.evaluate(() => sessionStorage.getItem('swe-scoring.readToken'))).toBeNull();
    expect(ui.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
