// Deep JSON bodies at the door: a body nested thousands of levels deep is refused as too deep, not
// misreported as holding a `__proto__` key (the checks of src/plugins/contentTypes.ts walk a body
// without recursion, so no depth overflows the stack). A real `__proto__` key, at any depth the
// checks reach, is still refused as such; a bad escape within reach is still named.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
});
afterEach(async () => t.close());

const put = (payload: string) =>
  t.call({
    method: 'PUT',
    url: '/v1/competitions/c',
    headers: { ...admin, 'content-type': 'application/json' },
    payload,
  });
const nested = (depth: number, inner: string) => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
const listed = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('deep bodies', () => {
  it.each([
    ['objects with a NUL escape', nested(4000, '"\\u0000"')],
    ['arrays with a NUL escape', listed(4000, '"\\u0000"')],
    ['arrays with a lone surrogate', listed(100_000, '"\\ud800"')],
    ['objects with a __proto__ key past the depth looked through', nested(4000, '{"__proto__": 1}')],
  ])('%s, 4,000 levels or more: a 400 saying it is too deep, storing nothing', async (_, deep) => {
    const res = await put(`{"name": "x", "extra": ${deep}}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nested deeper than 64 levels/);
    expect(res.body.detail).not.toMatch(/__proto__/);
    expect(await t.count('competitions')).toBe(0);
  });

  it('a __proto__ key within reach is refused as such', async () => {
    const res = await put(`{"name": "x", "extra": ${nested(10, '{"__proto__": {"admin": true}}')}}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/__proto__/);
  });

  it('a NUL within reach is named where it is', async () => {
    const res = await put(`{"name": "x", "extra": ${nested(3, '"\\u0000"')}}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('body/extra/a/a/a');
  });

  it("a deep body without such escapes gets the schema's answer", async () => {
    const res = await put(`{"name": ${nested(4000, '1')}}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ path: 'body/name' });
  });
});
