// Hostile signature headers over HTTP: a valid signed request with one or more of its Epistula
// headers dropped, replaced, repeated or added, or its body altered. Every case is a 401
// problem+json naming a header (never a 5xx, never a 2xx), and the database is unchanged.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signRequest } from '../../src/client/sign.js';
import { EPISTULA_HEADERS } from '../../src/signatures/message.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { ALICE, BOB, SERVER } from '../signatures/fixtures.js';

const NAMES = Object.values(EPISTULA_HEADERS);
const REASONS = /:(signature-(missing|malformed|invalid|stale|replayed)|unknown-hotkey)$/;

let t: TestApp;
let before: string;
beforeAll(async () => {
  // Hundreds of refusals from one address: the budget of failed checks (test/http/door.test.ts) off,
  // so that each case is answered for its own headers.
  t = await testApp({ door: { rateLimits: { signatureFailures: 0 } } });
  await t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'C' } });
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 't1', type: 'swebench_verified' }] },
  });
  await t.call({
    method: 'POST',
    url: '/v1/validators',
    headers: admin,
    payload: { name: 'alice', hotkey: ALICE.address },
  });
  before = await t.dump();
});
afterAll(async () => t.close());

const printable = fc.string({
  unit: fc.constantFrom(
    ...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~',
  ),
  maxLength: 140,
});

/** Values a hostile client might put in a header: random text, near-misses and other valid-looking values. */
const value = fc.oneof(
  printable,
  fc.constantFrom(
    '',
    '2',
    '1',
    '0',
    '-1',
    '1e12',
    '0x',
    '0x' + '0'.repeat(128),
    '0X' + 'a'.repeat(128),
    BOB.address,
    SERVER.address,
    '5' + 'z'.repeat(47),
    String(Date.now()),
    String(Number.MAX_SAFE_INTEGER),
    '00000000-0000-0000-0000-000000000000',
  ),
  fc.uuid(),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 140 }).map((h) => `0x${h}`),
  fc.integer({ min: -1e15, max: 1e16 }).map(String),
);

type Mutation =
  | { kind: 'drop'; name: string }
  | { kind: 'set'; name: string; value: string }
  | { kind: 'repeat'; name: string; value: string }
  | { kind: 'append'; name: string; suffix: string }
  | { kind: 'body' }
  | { kind: 'authorization'; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('set' as const), name: fc.constantFrom(...NAMES), value }),
  fc.record({ kind: fc.constant('repeat' as const), name: fc.constantFrom(...NAMES), value }),
  fc.record({
    kind: fc.constant('append' as const),
    name: fc.constantFrom(...NAMES),
    suffix: fc.string({ unit: fc.constantFrom('0', 'a', 'Z', '.', '-', '='), minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('body' as const) }),
  fc.record({ kind: fc.constant('authorization' as const), value: printable.map((s) => `Bearer ${s}x`) }),
);

function apply(
  headers: Record<string, string | string[]>,
  payload: string,
  m: Mutation,
): { payload: string; changed: boolean } {
  const held = 'name' in m ? headers[m.name] : undefined;
  const current = Array.isArray(held) ? held.join(', ') : held;
  switch (m.kind) {
    case 'drop':
      if (current === undefined) return { payload, changed: false };
      delete headers[m.name];
      return { payload, changed: true };
    case 'set':
      // HTTP trims surrounding spaces: a value equal to the original once trimmed changes nothing.
      if (m.value.trim() === (current ?? '').trim() && current !== undefined) return { payload, changed: false };
      headers[m.name] = m.value;
      return { payload, changed: true };
    case 'repeat':
      headers[m.name] = [current ?? m.value, m.value];
      return { payload, changed: true };
    case 'append':
      headers[m.name] = `${current ?? ''}${m.suffix}`;
      return { payload, changed: true };
    case 'body':
      return { payload: payload.replace('"resolved":true', '"resolved":false'), changed: true };
    case 'authorization':
      headers.authorization = m.value;
      return { payload, changed: true };
  }
}

/** The request as the server sees it: values trimmed (HTTP drops surrounding spaces), names sorted. */
const canonical = (headers: Record<string, string | string[]>, payload: string) =>
  JSON.stringify([
    Object.entries(headers)
      .map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.map((x) => x.trim()) : v.trim()])
      .sort(),
    payload,
  ]);

it('every mangled signature is a 401 problem naming a header, and stores nothing (400 cases)', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.uuid(), async (mutations, uuid) => {
      let payload = JSON.stringify({
        runs: [{ runId: `r-${uuid}`, taskId: 't1', kind: 'miner', minerHotkey: 'm1', resolved: true }],
      });
      const signedHeaders = signRequest({ key: ALICE, body: payload, uuid, signedFor: t.serverHotkey });
      const original = canonical(signedHeaders, payload);
      const headers: Record<string, string | string[]> = { ...signedHeaders };
      for (const m of mutations) payload = apply(headers, payload, m).payload;
      // Mutations may cancel out (set, then drop a header that was absent): only changed requests count.
      const changed = canonical(headers, payload) !== original;
      fc.pre(changed);
      n++;
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/competitions/c/runs',
        headers: { 'content-type': 'application/json', ...headers },
        payload,
      });
      const shown = `${JSON.stringify(mutations)} -> ${res.statusCode} ${res.body}`;
      expect(res.statusCode, shown).toBe(401);
      expect(res.headers['content-type'], shown).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(res.body);
      expect(problem.type, shown).toMatch(REASONS);
      expect(problem.errors?.[0]?.path ?? '', shown).toMatch(/^headers\/(epistula-|authorization)/);
      expect(await t.dump(), shown).toBe(before);
    }),
    { numRuns: 400, seed: 0x51a7e },
  );
  expect(n).toBeGreaterThanOrEqual(300);
});
