// A server whose reads need a token (SCORING_READS_REQUIRE_TOKEN=true): the dashboard asks for one,
// keeps it for the tab in sessionStorage, reads (and follows live updates) with it, never puts it
// in a URL, says when it is refused, and forgets it on request.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ADMIN_TOKEN } from '../support/serverProcess.js';
import { seriousViolations } from './axe.js';
import { launch, type Browser } from './browser.js';
import { startTestServer, type TestServer } from './server.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let errors: string[];
const urls: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startTestServer('demo', { SCORING_READS_REQUIRE_TOKEN: 'true' }),
    launch({ bypassCSP: true }),
  ]);
  ({ page, errors } = await browser.page());
  page.on('request', (r) => urls.push(r.url()));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const form = () => page.locator('form.token-form');
const submit = async (token: string) => {
  await page.locator('#read-token').fill(token);
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Read with this token' }).click()]);
};

describe('a dashboard on a server whose reads need a token', () => {
  it('asks for the token with a labelled form, axe clean', async () => {
    await page.goto(`${server.baseUrl}/#/c/demo`);
    await form().waitFor();
    expect(await form().innerText()).toContain('Reads on this server need a token');
    expect(await page.getByLabel('Read token').getAttribute('type')).toBe('password');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('says so when the token is refused, and holds it for the tab only', async () => {
    await submit('not-the-token');
    await form().waitFor();
    expect(await form().innerText()).toContain('The server refused the token this tab holds');
    expect(await page.evaluate(() => sessionStorage.getItem('swe-scoring.readToken'))).toBe('not-the-token');
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  });

  it('reads the leaderboard and follows live updates with the token, which no URL carries', async () => {
    await submit(SERVER_ADMIN_TOKEN);
    const board = await server.get('/v1/competitions/demo/leaderboard');
    await page.locator('#leaderboard tbody tr').first().waitFor();
    expect(await page.locator('#leaderboard tbody tr').count()).toBe(board.miners.length);
    await page.locator('[data-live="live"]').waitFor({ timeout: 5_000 });
    expect(page.url()).not.toContain(SERVER_ADMIN_TOKEN);
    expect(urls.filter((u) => u.includes(SERVER_ADMIN_TOKEN))).toEqual([]);
    expect(urls.some((u) => u.endsWith('/v1/competitions/demo/events'))).toBe(true);
  });

  it('forgets the token on request, and asks again', async () => {
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Forget read token' }).click()]);
    await form().waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('swe-scoring.readToken'))).toBeNull();
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
