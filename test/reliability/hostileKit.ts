// Shared machinery of the hostile-input suites: a seeded app holding runs, an attack runner
// asserting a 4xx problem+json that names the problem and an unchanged database, and the
// generators of bad values. Every attack is one request; the database dump is compared after each.
import fc from 'fast-check';
import { expect } from 'vitest';
import { ADMIN_TOKEN, admin, testApp, type TestApp } from '../support/app.js';
import { COMPETITION, CRITERIA, QNA_TASK, setupCompetition } from './fixture.js';
import type { Json } from '../support/json.js';

const SEED = 0x6a77ac4;
const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;

export interface Attack {
  /** What the request tries, for the failure message. */
  name: string;
  method: 'PUT' | 'POST' | 'DELETE';
  url: string;
  /** An object is sent as JSON; a string or Buffer is sent as is. */
  body?: unknown;
  /** Default application/json for a body; '' sends none. */
  contentType?: string;
  /** Default the admin token. */
  token?: string;
  status: number;
  /** Each must appear (case-insensitive) in the detail or the errors. */
  mentions: (string | RegExp)[];
}

export interface Target {
  t: TestApp;
  validatorKey: string;
  /** A stored miner run (on sw-1) and a stored QnA run, for conflicts. */
  storedMinerRun: Record<string, unknown>;
  storedQnaRun: Record<string, unknown>;
  count: number;
  run(attack: Attack): Promise<void>;
}

export const votes = (verdicts: ('YES' | 'NO')[]) => verdicts.map((verdict) => ({ verdict }));
export const validRun = (runId: string, extra: Record<string, unknown> = {}) => ({
  runId,
  taskId: 'sw-1',
  kind: 'miner',
  minerHotkey: 'hk-a',
  resolved: true,
  tokens: { input: 100, output: 10 },
  ...extra,
});
export const qnaRun = (runId: string, extra: Record<string, unknown> = {}) => ({
  runId,
  taskId: QNA_TASK,
  kind: 'miner',
  minerHotkey: 'hk-b',
  rubricVotes: CRITERIA.map((criterionId) => ({ criterionId, votes: votes(['YES', 'YES', 'NO']) })),
  ...extra,
});

export async function hostileTarget(): Promise<Target> {
  const t = await testApp();
  await setupCompetition((method, url, payload) =>
    t.call({ method: method, url, headers: admin, payload: payload as object }),
  );
  const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'hostile' } });
  const storedMinerRun = validRun('stored-1');
  const storedQnaRun = qnaRun('stored-qna');
  const baseline = {
    runId: 'stored-base',
    taskId: 'sw-1',
    kind: 'baseline',
    resolved: true,
    tokens: { input: 300, output: 30 },
  };
  const seeded = await t.call({
    method: 'POST',
    url: `/v1/competitions/${COMPETITION}/runs`,
    headers: { authorization: `Bearer ${v.body.apiKey}` },
    payload: { runs: [storedMinerRun, storedQnaRun, baseline] },
  });
  if (seeded.status !== 200) throw new Error(`seeding runs: ${seeded.status} ${JSON.stringify(seeded.body)}`);
  const before = await t.dump();

  const target: Target = {
    t,
    validatorKey: v.body.apiKey as string,
    storedMinerRun,
    storedQnaRun,
    count: 0,
    async run(a) {
      const label = `${a.name}: ${a.method} ${a.url.slice(0, 200)}`;
      const headers: Record<string, string> = { authorization: `Bearer ${a.token ?? ADMIN_TOKEN}` };
      let payload: string | Buffer | undefined;
      if (a.body !== undefined) {
        payload = typeof a.body === 'string' || Buffer.isBuffer(a.body) ? a.body : JSON.stringify(a.body);
        if (a.contentType !== '') headers['content-type'] = a.contentType ?? 'application/json';
      } else if (a.contentType) headers['content-type'] = a.contentType;
      const res = await t.app.inject({ method: a.method, url: a.url, headers, payload });
      target.count++;
      let body: Json;
      try {
        body = JSON.parse(res.body);
      } catch {
        body = res.body;
      }
      const shown = `${label} -> ${res.statusCode} ${res.body.slice(0, 500)}`;
      expect(res.statusCode, shown).toBe(a.status);
      expect(String(res.headers['content-type']), shown).toMatch(/^application\/problem\+json/);
      expect(
        typeof body.type === 'string' && typeof body.title === 'string' && typeof body.detail === 'string',
        shown,
      ).toBe(true);
      expect(body.status, shown).toBe(res.statusCode);
      expect(res.body, `${shown}: a stack trace`).not.toMatch(/node_modules|\bat .+:\d+:\d+/);
      const text = `${body.detail} ${JSON.stringify(body.errors ?? [])}`.toLowerCase();
      for (const m of a.mentions) {
        const ok = typeof m === 'string' ? text.includes(m.toLowerCase()) : m.test(text);
        expect(ok, `${shown}: does not mention ${String(m)}`).toBe(true);
      }
      expect((await t.dump()) === before, `${label}: the database changed`).toBe(true);
    },
  };
  return target;
}

/** Runs `numRuns` attacks drawn from the generator, with the suite's fixed seed. */
export async function storm(target: Target, arb: fc.Arbitrary<Attack>, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, (a) => target.run(a)),
    { seed: SEED, numRuns, endOnFailure: true },
  );
}

/** Values of the wrong JSON type for a string field. */
export const notString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);
/** Values of the wrong JSON type for a boolean field. */
export const notBoolean = fc.oneof(
  fc.integer(),
  fc.constantFrom('true', 'false', 'yes', '1', '', null),
  fc.array(fc.boolean(), { maxLength: 2 }),
  fc.constant({}),
);
/** Token counts the API refuses: negative, fractional, beyond 2^53 - 1, not numbers. */
export const badCount = fc.oneof(
  fc.integer({ max: -1 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((d) => !Number.isInteger(d)),
  fc.constantFrom(2 ** 53, 2 ** 60, 1e300, -1e300, Number.MAX_VALUE),
  fc.constantFrom('100', 'NaN', 'Infinity', '-Infinity', '1e3', '', null, true, [], {}),
  fc.string({ maxLength: 8 }),
);
/** Number literals that are not valid JSON, or parse to a number beyond the range. */
export const rawNumbers = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '9007199254740993',
  '1e400',
  '-1e400',
  '0x10',
  '+1',
  '01',
  '.5',
  '1.',
);
/** Placeholder replaced by raw JSON text after serializing. */
export const RAW = '\u0000RAW\u0000';
export const withRaw = (body: unknown, raw: string) => JSON.stringify(body).replace(JSON.stringify(RAW), raw);
export const invalidJsonLiteral = (raw: string) => !['9007199254740993', '1e400', '-1e400'].includes(raw);

/** Identifiers that break the `[A-Za-z0-9._:-]{1,128}` rule: path and control characters, SQL, length. */
export const badId = fc.oneof(
  fc.constantFrom(
    '../../etc/passwd',
    'a/b',
    '..\\..\\win.ini',
    'x\u0000y',
    'line\nbreak',
    'tab\there',
    'bell\u0007',
    'del\u007f',
    "x' OR '1'='1",
    "r1'); DROP TABLE runs; --",
    '1; DELETE FROM validators',
    '%00',
    'a b',
    'é',
    '😀',
    '<script>',
    'x'.repeat(129),
  ),
  fc.string({ minLength: 1, maxLength: 16 }).filter((s) => !ID_PATTERN.test(s)),
  fc.string({ minLength: 1, maxLength: 16, unit: 'binary' }).filter((s) => !ID_PATTERN.test(s)),
  fc.string({ minLength: 129, maxLength: 300, unit: fc.constantFrom('a', 'Z', '9', '-', '.') }),
);
export const enc = encodeURIComponent;
/** A megabyte of text. */
export const MEGA = 'x'.repeat(1 << 20);
/** Keys no schema knows (and not ones JSON parsers treat specially). */
export const extraKey = (known: string[]) =>
  fc
    .oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }))
    .filter((k) => !known.includes(k) && !['__proto__', 'constructor', 'prototype'].includes(k));
