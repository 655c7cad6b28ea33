import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  createEpistulaChecks,
  createEpistulaVerifier,
  verifyEpistula,
  type EpistulaVerdict,
} from '../../src/signatures/epistula.js';
import { hasEpistulaHeaders, type HeaderBag } from '../../src/signatures/headers.js';
import { Ss58Error } from '../../src/signatures/ss58.js';
import { ALICE, BOB, BODY, NOW, SERVER, UUID, signed, without } from './fixtures.js';

const verify = (
  headers: HeaderBag,
  body: string | Uint8Array | null = BODY,
  now = NOW,
  serverAddress = SERVER.address,
) => verifyEpistula({ headers, body, now }, { serverAddress });
const refusal = (v: EpistulaVerdict) => (v.ok ? 'accepted' : `${v.reason} ${v.header}`);

describe('Epistula v2: accepted', () => {
  it('accepts a request signed over its exact body, naming the signer', () => {
    const v = verify(signed());
    expect(v).toMatchObject({ ok: true, hotkey: ALICE.address, uuid: UUID, timestamp: NOW });
    expect(v.ok && v.publicKeyHex).toBe('d43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d');
  });

  it('accepts the body as bytes or as the same UTF-8 text, and an empty body as absent', () => {
    expect(verify(signed(), Buffer.from(BODY)).ok).toBe(true);
    expect(verify(signed({ body: '' }), null).ok).toBe(true);
    expect(verify(signed({ body: undefined }), new Uint8Array()).ok).toBe(true);
    expect(verify(signed({ body: 'é' }), Buffer.from('é', 'utf8')).ok).toBe(true);
  });

  it('accepts Epistula-Signed-For equal to the configured server address', () => {
    expect(verify(signed({ signedFor: SERVER.address }), BODY, NOW, SERVER.address).ok).toBe(true);
    expect(verify(signed({ key: BOB, signedFor: ALICE.address }), BODY, NOW, ALICE.address).ok).toBe(true);
  });

  it("takes Node's IncomingHttpHeaders as they are (what Fastify gives as request.headers)", () => {
    const headers: IncomingHttpHeaders = {
      ...signed(),
      'content-type': 'application/json',
      'x-forwarded-for': ['a', 'b'],
    };
    expect(verify(headers).ok).toBe(true);
  });

  it('reads header names in any case, and lower-cases the uuid for the replay key', () => {
    const upper = { ...signed({ uuid: UUID.toUpperCase() }) };
    const mixed = Object.fromEntries(Object.entries(upper).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify(mixed)).toMatchObject({ ok: true, uuid: UUID });
  });

  it('accepts a timestamp exactly at the window edge either way, refuses 1 ms beyond', () => {
    const check = createEpistulaVerifier({ serverAddress: SERVER.address, windowMs: 8000 });
    const at = (now: number) => refusal(check({ headers: signed(), body: BODY, now }));
    expect([at(NOW + 8000), at(NOW - 8000)]).toEqual(['accepted', 'accepted']);
    expect([at(NOW + 8001), at(NOW - 8001)]).toEqual([
      'signature-stale Epistula-Timestamp',
      'signature-stale Epistula-Timestamp',
    ]);
  });
});

describe('Epistula v2: each refusal names its reason and header', () => {
  const h = signed();
  const set = (name: string, value: string | string[]) => ({ ...h, [name]: value });
  it.each<[string, HeaderBag, string]>([
    ['no version', without(h, 'epistula-version'), 'signature-missing Epistula-Version'],
    ['no timestamp', without(h, 'epistula-timestamp'), 'signature-missing Epistula-Timestamp'],
    ['no uuid', without(h, 'epistula-uuid'), 'signature-missing Epistula-Uuid'],
    ['no signer', without(h, 'epistula-signed-by'), 'signature-missing Epistula-Signed-By'],
    ['no signature', without(h, 'epistula-request-signature'), 'signature-missing Epistula-Request-Signature'],
    ['no signed-for', without(h, 'epistula-signed-for'), 'signature-missing Epistula-Signed-For'],
    ['Authorization beside the signature', { ...h, authorization: 'Bearer abc' }, 'signature-malformed Authorization'],
    ['version 1', set('epistula-version', '1'), 'signature-malformed Epistula-Version'],
    ['version " 2"', set('epistula-version', ' 2'), 'signature-malformed Epistula-Version'],
    ['timestamp as text', set('epistula-timestamp', 'now'), 'signature-malformed Epistula-Timestamp'],
    [
      'timestamp in seconds with a fraction',
      set('epistula-timestamp', '1764000000.5'),
      'signature-malformed Epistula-Timestamp',
    ],
    ['negative timestamp', set('epistula-timestamp', '-1'), 'signature-malformed Epistula-Timestamp'],
    ['timestamp beyond 2^53', set('epistula-timestamp', '9999999999999999'), 'signature-malformed Epistula-Timestamp'],
    ['uuid not a UUID', set('epistula-uuid', 'not-a-uuid'), 'signature-malformed Epistula-Uuid'],
    [
      'signature without 0x',
      set('epistula-request-signature', h['epistula-request-signature']!.slice(2)),
      'signature-malformed Epistula-Request-Signature',
    ],
    [
      'short signature',
      set('epistula-request-signature', h['epistula-request-signature']!.slice(0, -2)),
      'signature-malformed Epistula-Request-Signature',
    ],
    [
      'non-hex signature',
      set('epistula-request-signature', `0x${'zz'.repeat(64)}`),
      'signature-malformed Epistula-Request-Signature',
    ],
    [
      'signer with a corrupted checksum',
      set('epistula-signed-by', `${ALICE.address.slice(0, -1)}Z`),
      'signature-malformed Epistula-Signed-By',
    ],
    ['signer as hex', set('epistula-signed-by', `0x${'ab'.repeat(32)}`), 'signature-malformed Epistula-Signed-By'],
    ['a repeated header', set('epistula-uuid', [UUID, UUID]), 'signature-malformed Epistula-Uuid'],
    ['signed-for not ss58', set('epistula-signed-for', 'me'), 'signature-malformed Epistula-Signed-For'],
    [
      'signed by another hotkey',
      set('epistula-signed-by', BOB.address),
      'signature-invalid Epistula-Request-Signature',
    ],
    [
      'another uuid',
      set('epistula-uuid', '3f2504e0-4f89-41d3-9a0c-0305e82c3302'),
      'signature-invalid Epistula-Request-Signature',
    ],
    [
      'another timestamp in the window',
      set('epistula-timestamp', String(NOW + 1)),
      'signature-invalid Epistula-Request-Signature',
    ],
    [
      'signed for another address, the header then changed to this server',
      { ...signed({ signedFor: BOB.address }), 'epistula-signed-for': SERVER.address },
      'signature-invalid Epistula-Request-Signature',
    ],
    ['signed for another address', signed({ signedFor: BOB.address }), 'signature-invalid Epistula-Signed-For'],
    [
      'zero signature',
      set('epistula-request-signature', `0x${'00'.repeat(64)}`),
      'signature-invalid Epistula-Request-Signature',
    ],
    ['stale timestamp', signed({ now: NOW - 60_000 }), 'signature-stale Epistula-Timestamp'],
    ['future timestamp', signed({ now: NOW + 60_000 }), 'signature-stale Epistula-Timestamp'],
  ])('%s', (_title, headers, expected) => {
    const v = verify(headers);
    expect(refusal(v)).toBe(expected);
    expect(!v.ok && v.message).toContain(expected.split(' ')[1]); // the message names the header too
  });

  it('refuses a body altered after signing', () => {
    expect(refusal(verify(signed(), BODY.replace('true', 'false')))).toBe(
      'signature-invalid Epistula-Request-Signature',
    );
    expect(refusal(verify(signed(), `${BODY} `))).toBe('signature-invalid Epistula-Request-Signature');
  });

  it("refuses a signature with a flipped bit, or without schnorrkel's marker, without throwing", () => {
    const sig = Buffer.from(signed()['epistula-request-signature']!.slice(2), 'hex');
    for (const i of [0, 31, 32, 63]) {
      const bad = Buffer.from(sig);
      bad[i]! ^= i === 63 ? 0x80 : 0x01;
      const v = verify({ ...signed(), 'epistula-request-signature': `0x${bad.toString('hex')}` });
      expect(refusal(v), `byte ${i}`).toBe('signature-invalid Epistula-Request-Signature');
    }
  });

  it('Epistula-Signed-For is required and must name this server; the refusal says which address to sign for', () => {
    for (const [headers, expected] of [
      [without(signed(), 'epistula-signed-for'), 'signature-missing Epistula-Signed-For'],
      [signed({ signedFor: BOB.address }), 'signature-invalid Epistula-Signed-For'],
      [{ ...signed(), 'epistula-signed-for': 'me' }, 'signature-malformed Epistula-Signed-For'],
    ] as const) {
      const v = verify(headers);
      expect(refusal(v)).toBe(expected);
      expect(!v.ok && v.message).toContain(SERVER.address);
      expect(!v.ok && v.message).toContain('/v1/identity');
    }
  });

  it('the two steps: the headers are judged without the body, sr25519 runs only in the second', () => {
    let ran = 0;
    const checks = createEpistulaChecks({
      serverAddress: SERVER.address,
      sr25519Verify: () => (ran++, true),
    });
    const stale = checks.headers(signed({ now: NOW - 60_000 }), NOW);
    expect(refusal(stale as EpistulaVerdict)).toBe('signature-stale Epistula-Timestamp');
    const seen = checks.headers(signed(), NOW);
    expect(seen.ok && seen.publicKeyHex).toBe(Buffer.from(ALICE.publicKey).toString('hex'));
    expect(ran).toBe(0);
    expect(seen.ok && checks.body(seen, BODY).ok).toBe(true);
    expect(ran).toBe(1);
  });
});

describe('Epistula v2: configuration and routing', () => {
  it('refuses a bad server address or window at construction', () => {
    expect(() => createEpistulaVerifier({ serverAddress: 'not-ss58' })).toThrow(Ss58Error);
    expect(() => createEpistulaVerifier({ serverAddress: SERVER.address, windowMs: -1 })).toThrow(RangeError);
    expect(() => createEpistulaVerifier({ serverAddress: SERVER.address, windowMs: 1.5 })).toThrow(RangeError);
    expect(() => createEpistulaVerifier({ serverAddress: SERVER.address, windowMs: 600_001 })).toThrow(RangeError);
  });

  it('hasEpistulaHeaders tells a signed request (any Epistula-* header) from a bearer one', () => {
    expect(hasEpistulaHeaders(signed())).toBe(true);
    expect(hasEpistulaHeaders({ 'Epistula-Signatur': 'typo' })).toBe(true);
    expect(hasEpistulaHeaders({ authorization: 'Bearer x', 'content-type': 'application/json' })).toBe(false);
    expect(hasEpistulaHeaders({ 'epistula-version': undefined })).toBe(false);
    expect(hasEpistulaHeaders({})).toBe(false);
    expect(hasEpistulaHeaders({ host: 'x', 'EPISTULA-TIMESTAMP': '1' })).toBe(true);
    // Own names only: one a prototype holds is not the request's.
    expect(hasEpistulaHeaders(Object.create({ 'epistula-version': '2' }) as HeaderBag)).toBe(false);
  });
});
