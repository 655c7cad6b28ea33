// Signed (Epistula v2) against bearer ingest, on the same server and the same batches: fresh
// competitions with the reference tasks, one fed by a bearer-key validator and one by a signing
// validator (twice: signing each request as it is sent, and signing a phase's requests before its
// clock starts, which leaves the server's cost alone: the benchmark's client shares the machine).
import { keypairFromSeed, serverHotkey, signRequest } from '../src/client/sign.js';
import type { Competition } from './generate.js';
import { sweTaskInputs } from './generate.js';
import { call, callJson, RequestFailed } from './measure.js';

/** The server's signature window in the benchmark: a presigned phase must fit in it. */
export const BENCH_SIGNATURE_WINDOW_MS = 600_000;

export interface AuthCompare {
  batches: number;
  runsPerMode: number;
  bearerRunsPerSecond: number;
  /** Each request signed just before it is sent, on the benchmark's machine: the client's signing time counts. */
  signedRunsPerSecond: number;
  /** Every request of a phase signed before its clock starts: the server's cost alone (needs a wide window). */
  presignedRunsPerSecond: number;
  /** signed / bearer and presigned / bearer. */
  ratio: number;
  serverRatio: number;
}

async function competition(url: string, admin: string, id: string, c: Competition): Promise<void> {
  const token = { token: admin };
  await call(url, `/v1/competitions/${id}`, {
    ...token,
    method: 'PUT',
    body: JSON.stringify({ name: id, tokenWeights: { input: 1, cachedInput: 0.1, output: 3 } }),
  });
  await call(url, `/v1/competitions/${id}/tasks`, {
    ...token,
    method: 'PUT',
    body: JSON.stringify({ tasks: sweTaskInputs(c) }),
  });
  for (const imp of c.qnaImports) {
    await call(url, `/v1/competitions/${id}/tasks/import?complexity=${imp.complexity}`, {
      ...token,
      body: imp.body,
      contentType: 'application/x-ndjson',
    });
  }
}

const MODES = ['bearer', 'presigned', 'signed'] as const;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
type Mode = (typeof MODES)[number];
/** Batches per block: two per client, so each block fills the clients twice over. */
const BLOCK = 8;

type Send = (path: string, body: string, i: number) => Promise<Response>;

async function phase(send: Send, id: string, bodies: string[], counts: number[], clients: number): Promise<number> {
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const i = next++;
      const res = await send(`/v1/competitions/${id}/runs`, bodies[i]!, i);
      const text = await res.text();
      if (res.status !== 200) throw new RequestFailed(`${id} batch ${i} -> ${res.status}: ${text.slice(0, 400)}`);
      const r = JSON.parse(text) as { accepted: number };
      if (r.accepted !== counts[i]) throw new RequestFailed(`${id} batch ${i}: accepted ${r.accepted} of ${counts[i]}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  return (performance.now() - start) / 1000;
}

/** Ingest rates by mode; the server's signature window must cover a whole phase for the presigned mode. */
export async function compareAuth(
  url: string,
  admin: string,
  c: Competition,
  bodies: string[],
  counts: number[],
  clients: number,
  /** Names this comparison's competitions and validators apart from an earlier one's on the same server. */
  round = 0,
  /** Told as each timed phase starts and ends (bench/authOnly.ts reads the server's CPU time). */
  observe: (mode: string, edge: 'start' | 'end') => void = () => {},
): Promise<AuthCompare> {
  const p = round === 0 ? '' : `r${round}-`;
  const ids = { bearer: `${p}auth-bearer`, signed: `${p}auth-signed`, presigned: `${p}auth-presigned` };
  for (const id of Object.values(ids)) await competition(url, admin, id, c);
  const { apiKey } = await callJson<{ apiKey: string }>(url, '/v1/validators', {
    token: admin,
    body: JSON.stringify({ name: `${p}bench-bearer` }),
  });
  const key = keypairFromSeed(new Uint8Array(32).fill(42 + round));
  await call(url, '/v1/validators', {
    token: admin,
    body: JSON.stringify({ name: `${p}bench-signer`, hotkey: key.address }),
  });

  const signedFor = await serverHotkey(url);
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const modes = {
    bearer: async () => (path: string, body: string) => post(path, body, { authorization: `Bearer ${apiKey}` }),
    signed: async () => (path: string, body: string) => post(path, body, signRequest({ key, body, signedFor })),
    presigned: async (part: string[]) => {
      const signed = part.map((body) => signRequest({ key, body, signedFor }));
      return (path: string, body: string, i: number) => post(path, body, signed[i]!);
    },
  };
  // Blocks of BLOCK batches, the modes' order rotating block by block (A B C, B C A, C A B, ...):
  // the machine's drift (other tenants, garbage collections, the database growing) falls on every
  // mode alike. Whole phases of a minute each moved the ratio by 0.15 between two rounds.
  const blocks: { mode: Mode; from: number; to: number }[] = [];
  const per = Math.ceil(bodies.length / BLOCK);
  for (let b = 0; b < per; b++) {
    const from = b * BLOCK;
    const to = Math.min(bodies.length, from + BLOCK);
    for (let k = 0; k < MODES.length; k++) blocks.push({ mode: MODES[(b + k) % MODES.length]!, from, to });
  }
  const seconds = { bearer: 0, signed: 0, presigned: 0 };
  for (const { mode, from, to } of blocks) {
    const send = await modes[mode](bodies.slice(from, to));
    observe(mode, 'start');
    seconds[mode] += await phase(send, ids[mode], bodies.slice(from, to), counts.slice(from, to), clients);
    observe(mode, 'end');
  }
  const runs = counts.reduce((s, n) => s + n, 0);
  const rate = (m: keyof typeof seconds) => Math.round(runs / seconds[m]);
  return {
    batches: bodies.length,
    runsPerMode: runs,
    bearerRunsPerSecond: rate('bearer'),
    signedRunsPerSecond: rate('signed'),
    presignedRunsPerSecond: rate('presigned'),
    ratio: r3(rate('signed') / rate('bearer')),
    serverRatio: r3(rate('presigned') / rate('bearer')),
  };
}

/** Rounds of `compareAuth` taken together: each mode's runs over its seconds, and each round's ratios. */
export function poolRounds(rounds: AuthCompare[]): AuthCompare & { rounds: { ratio: number; serverRatio: number }[] } {
  const seconds = (rate: (a: AuthCompare) => number) => rounds.reduce((s, a) => s + a.runsPerMode / rate(a), 0);
  const runs = rounds.reduce((s, a) => s + a.runsPerMode, 0);
  const rate = (get: (a: AuthCompare) => number) => Math.round(runs / seconds(get));
  const bearer = rate((a) => a.bearerRunsPerSecond);
  const signed = rate((a) => a.signedRunsPerSecond);
  const presigned = rate((a) => a.presignedRunsPerSecond);
  return {
    batches: rounds.reduce((s, a) => s + a.batches, 0),
    runsPerMode: runs,
    bearerRunsPerSecond: bearer,
    signedRunsPerSecond: signed,
    presignedRunsPerSecond: presigned,
    ratio: r3(signed / bearer),
    serverRatio: r3(presigned / bearer),
    rounds: rounds.map(({ ratio, serverRatio }) => ({ ratio, serverRatio })),
  };
}
