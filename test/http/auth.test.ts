import { afterEach, expect, it } from 'vitest';
import Fastify from 'fastify';
import { authPlugin } from '../../src/plugins/auth.js';
import { errorHandler } from '../../src/plugins/errors.js';
import { ADMIN_TOKEN, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
afterEach(async () => t.close());

it('accepts the bearer scheme in any case (RFC 9110)', async () => {
  t = await testApp();
  const res = await t.call({
    method: 'GET',
    url: '/v1/validators',
    headers: { authorization: `bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
});

it('keeps docs, the OpenAPI document and operations open when reads require a token', async () => {
  t = await testApp({ readsRequireToken: true });
  for (const url of ['/openapi.json', '/docs/', '/healthz', '/readyz', '/metrics']) {
    expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
  }
  const refused = await t.call({ method: 'GET', url: '/v1/competitions' });
  expect(refused.status).toBe(401);
  // RFC 9110 11.6.1: a 401 says which scheme would be taken.
  expect(refused.headers['www-authenticate']).toBe('Bearer realm="swe-scoring"');
});

it('a /v1 route without a declared access level fails closed (admin only)', async () => {
  t = await testApp();
  const bare = Fastify();
  bare.setErrorHandler(errorHandler);
  await bare.register(authPlugin, {
    adminToken: ADMIN_TOKEN,
    readsRequireToken: false,
    validatorByKey: (key) => t.store.validators.authenticate(key),
    admitSigned: (headers, now) => t.app.services.signatures.admit(headers, now),
    signatureFailures: null,
  });
  bare.get('/v1/forgotten', () => ({ ok: true }));
  bare.get('/elsewhere', () => ({ ok: true }));
  expect((await bare.inject({ method: 'GET', url: '/v1/forgotten' })).statusCode).toBe(401);
  const withAdmin = await bare.inject({
    method: 'GET',
    url: '/v1/forgotten',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(withAdmin.statusCode).toBe(200);
  expect((await bare.inject({ method: 'GET', url: '/elsewhere' })).statusCode).toBe(200);
  await bare.close();
});

it('every documented operation that needs a token refuses a request without one, however reads are set', async () => {
  const checkedWith: number[] = [];
  for (const readsRequireToken of [false, true]) {
    t = await testApp({ readsRequireToken });
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: object[] }>> };
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const open = (op.security ?? []).length === 0;
        const publicRead = op.security?.some((s) => Object.keys(s).length === 0) ?? false;
        if (open || (publicRead && !readsRequireToken)) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x');
        const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url });
        expect(res.statusCode, `${method} ${url}, reads require a token: ${readsRequireToken}`).toBe(401);
        checked++;
      }
    }
    checkedWith.push(checked);
    await t.close();
  }
  // Writes and admin reads; then the public reads as well.
  expect(checkedWith[0]).toBeGreaterThanOrEqual(15);
  expect(checkedWith[1]).toBeGreaterThan(checkedWith[0]! + 10);
  t = await testApp();
});
