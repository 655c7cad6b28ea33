// The client helper: headers any HTTP client can send, and the openapi-fetch middleware signing
// the exact bytes the client puts on the wire (checked by the server's verifier).
import createClient from 'openapi-fetch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { paths } from '../../src/client/index.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  bodyHasher,
  bodySha256Hex,
  createSignedScoringClient,
  epistulaMiddleware,
  keypairFromSecretKey,
  keypairFromSeed,
  signRequest,
} from '../../src/client/sign.js';
import { verifyEpistula } from '../../src/signatures/epistula.js';
import { ALICE, SERVER } from './fixtures.js';

/** A fetch that records the request and answers 200 {}; GET /v1/identity answers SERVER's address, counted apart. */
function recorder() {
  const seen: { request: Request; body: Uint8Array }[] = [];
  const identity = { reads: 0 };
  const fetch = async (input: Request | string, init?: RequestInit) => {
    const request = typeof input === 'string' ? new Request(input, init) : input;
    const json = { status: 200, headers: { 'content-type': 'application/json' } };
    if (new URL(request.url).pathname === '/v1/identity') {
      identity.reads++;
      return new Response(JSON.stringify({ hotkey: SERVER.address }), json);
    }
    seen.push({ request, body: new Uint8Array(await request.clone().arrayBuffer()) });
    return new Response('{}', json);
  };
  return { seen, fetch, identity };
}
const verifyRecorded = ({ request, body }: { request: Request; body: Uint8Array }, serverAddress = SERVER.address) =>
  verifyEpistula({ headers: Object.fromEntries(request.headers), body, now: Date.now() }, { serverAddress });

const RUNS = { runs: [{ runId: 'r1', taskId: 't1', kind: 'miner' as const, minerHotkey: 'm1', resolved: true }] };

afterEach(() => vi.unstubAllGlobals());

describe('client signing', () => {
  it('signRequest gives the six headers, with a fresh uuid and the clock by default', () => {
    const h = signRequest({ key: ALICE, body: '{}', signedFor: SERVER.address });
    expect(Object.keys(h).sort()).toEqual([
      'Epistula-Request-Signature',
      'Epistula-Signed-By',
      'Epistula-Signed-For',
      'Epistula-Timestamp',
      'Epistula-Uuid',
      'Epistula-Version',
    ]);
    expect(h['Epistula-Signed-By']).toBe(ALICE.address);
    expect(Math.abs(Number(h['Epistula-Timestamp']) - Date.now())).toBeLessThan(1000);
    expect(signRequest({ key: ALICE, body: '{}', signedFor: SERVER.address })['Epistula-Uuid']).not.toBe(
      h['Epistula-Uuid'],
    );
    expect(h['Epistula-Signed-For']).toBe(SERVER.address);
  });

  it("the body hash is SHA-256 of the UTF-8 bytes, by node:crypto (the default on Node) and by noble's", () => {
    const text = '{"answer":"café ☃ 😀"}';
    const bytes = new TextEncoder().encode(text);
    const want = Buffer.from(sha256(bytes)).toString('hex');
    const empty = Buffer.from(sha256(new Uint8Array())).toString('hex');
    for (const hash of [bodySha256Hex, bodyHasher(null)]) {
      expect(hash(text)).toBe(want);
      expect(hash(bytes)).toBe(want);
      expect(hash(undefined)).toBe(empty);
      expect(hash(null)).toBe(empty);
    }
  });

  it('keys come from a 32-byte seed or a 64-byte secret key, as bytes or hex', () => {
    const fromSecret = keypairFromSecretKey(Buffer.from(ALICE.secretKey).toString('hex'));
    expect(fromSecret.address).toBe(ALICE.address);
    expect(keypairFromSeed(new Uint8Array(32)).address).toMatch(/^5/);
    expect(() => keypairFromSeed('0x1234')).toThrow(RangeError);
    expect(() => keypairFromSecretKey(new Uint8Array(32))).toThrow(RangeError);
    // a secret key given as hex signs like the keypair itself
    const h = signRequest({ key: Buffer.from(ALICE.secretKey).toString('hex'), body: 'x', signedFor: SERVER.address });
    const now = Number(h['Epistula-Timestamp']);
    expect(verifyEpistula({ headers: h, body: 'x', now }, { serverAddress: SERVER.address }).ok).toBe(true);
  });

  it('the middleware signs the JSON body the client sends, and the server verifier accepts it', async () => {
    const { seen, fetch } = recorder();
    const client = createClient<paths>({ baseUrl: 'http://scoring.test', fetch });
    client.use(epistulaMiddleware(ALICE, { signedFor: SERVER.address }));
    await client.POST('/v1/competitions/{competitionId}/runs', {
      params: { path: { competitionId: 'c1' } },
      body: RUNS,
    });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(new TextDecoder().decode(seen[0]!.body))).toEqual(RUNS);
    expect(verifyRecorded(seen[0]!, SERVER.address)).toMatchObject({ ok: true, hotkey: ALICE.address });
    expect(seen[0]!.request.headers.get('authorization')).toBeNull();
  });

  it('signs a bodiless GET over the empty body', async () => {
    const { seen, fetch } = recorder();
    const client = createClient<paths>({ baseUrl: 'http://scoring.test', fetch });
    client.use(epistulaMiddleware(ALICE.secretKey, { signedFor: SERVER.address }));
    await client.GET('/v1/competitions');
    expect(seen[0]!.body).toHaveLength(0);
    expect(verifyRecorded(seen[0]!).ok).toBe(true);
  });

  it('createSignedScoringClient signs every request for the address GET /v1/identity gives, read once', async () => {
    const { seen, fetch, identity } = recorder();
    vi.stubGlobal('fetch', fetch);
    const client = createSignedScoringClient('http://scoring.test', ALICE);
    await client.GET('/v1/competitions');
    await client.GET('/v1/competitions');
    expect(identity.reads).toBe(1);
    expect(seen.map((s) => s.request.headers.get('epistula-signed-for'))).toEqual([SERVER.address, SERVER.address]);
    expect(verifyRecorded(seen[0]!).ok).toBe(true);
    expect(verifyRecorded(seen[1]!).ok).toBe(true);
  });

  it('a client with a bearer token cannot also sign', async () => {
    const { fetch } = recorder();

    const bearer = createClient<paths>({
      baseUrl: 'http://scoring.test',
      fetch,
      headers: { authorization: 'Bearer t' },
    });
    bearer.use(epistulaMiddleware(ALICE, { signedFor: SERVER.address }));
    await expect(bearer.GET('/v1/competitions')).rejects.toThrow(/no Authorization/);
  });
});
