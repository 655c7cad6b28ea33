// /docs as Swagger UI draws it: a lock on each operation that needs a token, none on a public read
// (src/plugins/docs.ts, withoutOptionalLocks), none on an open route.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launch, type Browser } from './browser.js';
import { startTestServer, type TestServer } from './server.js';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer('empty'), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('draws a lock on writes only, not on public reads', async () => {
  const { page } = await browser.page();
  await page.goto(`${server.baseUrl}/docs/`);
  await page.waitForSelector('.opblock-summary');
  const locks = Object.fromEntries(
    await page.$$eval('.opblock-summary', (rows) =>
      rows.map((row) => [
        `${row.querySelector('.opblock-summary-method')?.textContent} ${row.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        row.querySelector('.authorization__btn') !== null,
      ]),
    ),
  );
  expect(locks).toMatchObject({
    'GET /v1/competitions/{competitionId}/leaderboard': false,
    'GET /v1/competitions/{competitionId}/weights': false,
    'GET /healthz': false,
    'PUT /v1/competitions/{competitionId}': true,
    'POST /v1/competitions/{competitionId}/runs': true,
    'GET /v1/admin/backup': true,
  });
});

it('logs no console error: its Content Security Policy lets Swagger UI apply its styles', async () => {
  const { page, errors } = await browser.page();
  await page.goto(`${server.baseUrl}/docs/`);
  await page.waitForSelector('.opblock-summary');
  // Expand an operation: Swagger UI sets more inline styles as it draws one open.
  await page.click('.opblock-summary');
  await page.waitForSelector('.opblock-body');
  await new Promise((r) => setTimeout(r, 300));
  expect(errors).toEqual([]);
});
