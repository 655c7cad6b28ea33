// Hostile input over the six headers and the body: the verifier never throws and refuses every
// request that is not exactly what was signed, with a reason and the header at fault.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyEpistula } from '../../src/signatures/epistula.js';
import type { HeaderBag } from '../../src/signatures/headers.js';
import { BOB, BODY, NOW, SERVER, signed, without } from './fixtures.js';

const NAMES = [
  'epistula-version',
  'epistula-timestamp',
  'epistula-uuid',
  'epistula-signed-by',
  'epistula-signed-for',
  'epistula-request-signature',
];
const REASONS = ['signature-missing', 'signature-malformed', 'signature-invalid', 'signature-stale'];
const HEADERS = [
  'Epistula-Version',
  'Epistula-Timestamp',
  'Epistula-Uuid',
  'Epistula-Signed-By',
  'Epistula-Signed-For',
  'Epistula-Request-Signature',
  'Authorization',
];
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const good = signed();
const OPTIONS = { serverAddress: SERVER.address };
type Case = { headers: HeaderBag; body: string | Uint8Array; expect?: string[] };
const set = (name: string, value: string | string[] | undefined, expect?: string[]): Case => ({
  headers: { ...good, [name]: value },
  body: BODY,
  expect,
});
const text = fc.string({ unit: 'grapheme-composite', maxLength: 200 });
const hex = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('hex'));

const mutation: fc.Arbitrary<Case> = fc.oneof(
  text.filter((v) => v !== '2').map((v) => set('epistula-version', v, ['signature-malformed Epistula-Version'])),
  text.map((v) => set('epistula-timestamp', v)),
  fc
    .integer({ min: 8001, max: 10 ** 12 })
    .chain((d) => fc.constantFrom(NOW + d, NOW - d))
    .map((t) => set('epistula-timestamp', String(t), ['signature-stale Epistula-Timestamp'])),
  fc.double().map((t) => set('epistula-timestamp', String(t))),
  text.map((v) => set('epistula-uuid', v)),
  fc.uuid().map((v) => set('epistula-uuid', v, ['signature-invalid Epistula-Request-Signature'])),
  text.map((v) => set('epistula-request-signature', v, ['signature-malformed Epistula-Request-Signature'])),
  fc
    .integer({ min: 0, max: 200 })
    .filter((n) => n !== 64)
    .chain(hex)
    .map((h) => set('epistula-request-signature', `0x${h}`, ['signature-malformed Epistula-Request-Signature'])),
  hex(64).map((h) => set('epistula-request-signature', `0x${h}`, ['signature-invalid Epistula-Request-Signature'])),
  text.map((v) => set('epistula-signed-by', v)),
  fc.tuple(fc.nat({ max: 47 }), fc.constantFrom(...BASE58)).map(([i, c]) => {
    const a = good['epistula-signed-by']!;
    const flipped = a.slice(0, i) + (a[i] === c ? (c === '1' ? '2' : '1') : c) + a.slice(i + 1);
    return set('epistula-signed-by', flipped, [
      'signature-malformed Epistula-Signed-By',
      'signature-invalid Epistula-Request-Signature',
    ]);
  }),
  fc.constant(set('epistula-signed-by', BOB.address, ['signature-invalid Epistula-Request-Signature'])),
  text.map((v) => set('epistula-signed-for', v)),
  fc.constant(set('epistula-signed-for', BOB.address, ['signature-invalid Epistula-Signed-For'])),
  fc
    .constantFrom(...NAMES)
    .map((n) => set(n, [good[n] ?? 'x', good[n] ?? 'x'], [`signature-malformed ${HEADERS[NAMES.indexOf(n)]}`])),
  text.map((v) => set('authorization', v, ['signature-malformed Authorization'])),
  fc.subarray(NAMES, { minLength: 1 }).map((drop) => ({
    headers: drop.reduce(without, good as HeaderBag),
    body: BODY,
    expect: [`signature-missing ${HEADERS[NAMES.indexOf(drop[0]!)]}`],
  })),
  fc
    .oneof(text, fc.uint8Array({ maxLength: 300 }))
    .filter((b) => Buffer.compare(Buffer.from(b), Buffer.from(BODY)) !== 0)
    .map((body) => ({ headers: good, body, expect: ['signature-invalid Epistula-Request-Signature'] })),
);

// Up to three mutations on top of each other (then only "refused" is expected, not which reason).
const hostile: fc.Arbitrary<Case> = fc.array(mutation, { minLength: 1, maxLength: 3 }).map((cases) => {
  if (cases.length === 1) return cases[0]!;
  const headers: Record<string, string | readonly string[] | undefined> = { ...good };
  let body: Case['body'] = BODY;
  for (const c of cases) {
    for (const k of new Set([...Object.keys(good), ...Object.keys(c.headers)])) {
      if (c.headers[k] !== good[k]) headers[k] = c.headers[k];
    }
    if (c.body !== BODY) body = c.body;
  }
  return { headers, body };
});

describe('Epistula v2 under hostile input', () => {
  it('the unaltered request is accepted (the property below is not vacuous)', () => {
    expect(verifyEpistula({ headers: good, body: BODY, now: NOW }, OPTIONS).ok).toBe(true);
  });

  it('never throws; every altered request is refused with a known reason and header', () => {
    fc.assert(
      fc.property(hostile, (c) => {
        const v = verifyEpistula({ headers: c.headers, body: c.body, now: NOW }, OPTIONS);
        expect(v.ok).toBe(false);
        if (v.ok) return;
        expect(REASONS).toContain(v.reason);
        expect(HEADERS).toContain(v.header);
        expect(v.message.length).toBeGreaterThan(0);
        if (c.expect) expect(c.expect).toContain(`${v.reason} ${v.header}`);
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on arbitrary header bags', () => {
    const value = fc.option(fc.oneof(text, fc.array(text, { maxLength: 3 })), { nil: undefined });
    const bag = fc.dictionary(fc.constantFrom(...NAMES, 'Epistula-Version', 'x-other', 'authorization'), value);
    fc.assert(
      fc.property(bag, fc.oneof(text, fc.uint8Array()), fc.integer(), (headers, body, now) => {
        const v = verifyEpistula({ headers, body, now }, OPTIONS);
        expect(v.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
