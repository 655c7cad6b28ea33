// Paging integers in a query string are decimal digits: `Number()` would read `0x10` as 16, `1e2`
// as 100 and ` 5` as 5, a page the client never asked for. Each paged route answers such a value
// with a 400 naming the parameter and saying what it takes, and takes plain digits.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
  await seedCompetition(t, 'c');
});
afterAll(async () => t.close());

const PAGED: [url: string, param: string, range: string][] = [
  ['/v1/audit', 'limit', '1 to 1,000'],
  ['/v1/competitions/c/runs', 'limit', '1 to 1,000'],
  ['/v1/competitions/c/leaderboard', 'limit', '1 to 1,000'],
  ['/v1/competitions/c/leaderboard', 'offset', '0 to 9,007,199,254,740,991'],
  ['/v1/competitions/c/coverage', 'limit', '1 to 10,000'],
  ['/v1/competitions/c/snapshots', 'limit', '1 to 1,000'],
  ['/v1/competitions/c/miners/alice/history', 'limit', '1 to 1,000'],
  ['/v1/competitions/c/weights/history', 'limit', '1 to 1,000'],
];
const NOT_DIGITS = ['0x10', '1e2', '%2010', '10%20', '+5', '10.0', '-0', '%EF%BC%91', '0b11', 'Infinity'];

it.each(PAGED)('%s ?%s= takes decimal digits only', async (url, param, range) => {
  for (const value of NOT_DIGITS) {
    const res = await t.call({ method: 'GET', url: `${url}?${param}=${value}`, headers: admin });
    expect(res.status, `${param}=${value}`).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const error = (res.body.errors as Json[]).find((e) => e.path === `querystring/${param}`);
    expect(error?.message, `${param}=${value}`).toContain(`decimal integer from ${range}`);
  }
  for (const value of ['10', '010']) {
    const res = await t.call({ method: 'GET', url: `${url}?${param}=${value}`, headers: admin });
    expect(res.status, `${param}=${value}`).not.toBe(400);
    expect(res.status, `${param}=${value}`).toBeLessThan(500);
  }
});
