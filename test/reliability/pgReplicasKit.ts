// Several server processes (replicas) on one PostgreSQL database, for the suites that hold them to
// docs/POSTGRES.md "Several processes: no stale read": the score reads compared across replicas
// (bodies and ETags) after each acknowledgement, with the ETag each replica gave before as
// If-None-Match (a stale 304 is a lost write), and writers that check their own runs on another
// replica. The writes of every kind: ./pgMixedWrites.ts, on test/reliability/fixture.ts's competition.
import { expect } from 'vitest';
import type { Rng } from '../support/prng.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/serverProcess.js';
import { COMPETITION, makeRun, QNA_TASK, type RunBody } from './fixture.js';

export const C = `/v1/competitions/${COMPETITION}`;
/** Every score read of the competition, compared across replicas. */
export const READS = [
  `${C}/leaderboard`,
  `${C}/leaderboard?stages=screener_1,screener_2,evaluation`,
  `${C}/leaderboard?limit=2&offset=1`,
  `${C}/weights`,
  `${C}/weights/chain`,
  `${C}/miners/hk-a`,
  `${C}/miners/hk-b`,
  `${C}/coverage`,
  `${C}/criteria/report`,
  `${C}/tasks/qna-1`,
  `${C}/validators`,
];

export interface Answer {
  status: number;
  etag: string | null;
  text: string;
  type: string;
  retryAfter: string | null;
}

export async function read(server: ServerProcess, path: string, ifNoneMatch?: string): Promise<Answer> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {} });
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    text: await res.text(),
    type: res.headers.get('content-type') ?? '',
    retryAfter: res.headers.get('retry-after'),
  };
}

/** An answer refused as the database's unavailability must be: a 503 problem+json with Retry-After. */
export function expectRefusal(a: Answer, what: string): void {
  expect(a.status, `${what}: ${a.text}`).toBe(503);
  expect(a.type, what).toContain('application/problem+json');
  expect(a.retryAfter, what).not.toBeNull();
}

/** What each replica answered last for each read, to send its ETag back. */
export class Readers {
  private readonly last = new Map<string, Answer>();
  /** Reads answered 304. */
  notModified = 0;

  /** Reads every score read on every replica (If-None-Match: its last ETag), 304s resolved to the body they stand for. */
  async all(replicas: ServerProcess[], paths: readonly string[] = READS): Promise<Map<string, Answer[]>> {
    const out = new Map<string, Answer[]>();
    await Promise.all(
      paths.map(async (path) => {
        out.set(
          path,
          await Promise.all(
            replicas.map(async (r) => {
              const key = `${r.port} ${path}`;
              const before = this.last.get(key);
              const got = await read(r, path, before?.etag ?? undefined);
              expect(got.status, `${path} on :${r.port}: ${got.text}`).toBeLessThan(500);
              if (got.status === 304) this.notModified++;
              const answer = got.status === 304 ? { ...before!, etag: got.etag } : got;
              this.last.set(key, answer);
              return answer;
            }),
          ),
        );
      }),
    );
    return out;
  }
}

/**
 * A writer of its own validator's runs (never excluded, never deleted by `Mixed`) that checks,
 * after each acknowledged batch, that another replica's validators table counts exactly the runs
 * it was told were stored, asked with the ETag that replica gave the writer before.
 */
export async function countingWriter(
  rng: Rng,
  replicas: ServerProcess[],
  name: string,
  stop: () => boolean,
  /** Under faults: a 503 (checked as the refusal it must be) is sent again until answered. */
  faults = false,
): Promise<{ batches: number; refused: number }> {
  const made = await untilAnswered(faults, () => send(replicas[0]!, 'POST', '/v1/validators', { name }));
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const { id, apiKey } = made.body as { id: string; apiKey: string };
  const etags = new Map<ServerProcess, string>();
  let stored = 0;
  let batches = 0;
  let refused = 0;
  while (!stop()) {
    const to = rng.pick(replicas);
    // No QnA run: one needs the judge in force, which the mixed writes change.
    const runs = Array.from({ length: rng.int(1, 20) }, () => {
      let run: RunBody;
      do run = makeRun(rng, `${name}-${stored}`);
      while (run.taskId === QNA_TASK);
      stored++;
      return run;
    });
    let tries = 0;
    const res = await untilAnswered(faults, () => (tries++, send(to, 'POST', `${C}/runs`, { runs }, apiKey)));
    refused += tries - 1;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Refused first, it may have been stored then: resent, its runs are duplicates.
    const { accepted, duplicates } = res.body as { accepted: number; duplicates: number };
    expect(accepted + duplicates).toBe(runs.length);
    if (tries === 1) expect(accepted).toBe(runs.length);
    batches++;
    const from = rng.pick(replicas.filter((r) => r !== to));
    // Every stage: the table counts the runs on the stage set's tasks.
    const path = `${C}/validators?stages=screener_1,screener_2,evaluation`;
    const got = await untilAnswered(faults, () => read(from, path, etags.get(from)));
    const where = `${name}'s ${stored} runs, written to :${to.port}, read on :${from.port}`;
    expect(got.status, `${where}: ${got.text}`).toBe(200);
    etags.set(from, got.etag!);
    const row = (JSON.parse(got.text) as { validators: { id: string; runs: number }[] }).validators.find(
      (v) => v.id === id,
    );
    expect(row?.runs, where).toBe(stored);
  }
  return { batches, refused };
}

/** The answer, sent again while it is a 503 refusal (checked as such) when `faults`. */
export async function untilAnswered<T extends { status: number; type: string; retryAfter: string | null }>(
  faults: boolean,
  f: () => Promise<T>,
): Promise<T> {
  for (;;) {
    const res = await f();
    if (!faults || res.status !== 503) return res;
    const a = res as unknown as { type: string; retryAfter: string | null };
    expect(a.type, JSON.stringify(res)).toContain('application/problem+json');
    expect(a.retryAfter, JSON.stringify(res)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every replica answers every read with the same status, bytes and ETag. */
export function expectSame(answers: Map<string, Answer[]>, replicas: ServerProcess[], after: string): void {
  for (const [path, list] of answers) {
    const [first, ...rest] = list;
    rest.forEach((a, i) => {
      const where = `${path} on :${replicas[i + 1]!.port} vs :${replicas[0]!.port}, after ${after}`;
      expect(a.status, where).toBe(first!.status);
      expect(a.text, where).toBe(first!.text);
      expect(a.etag, where).toBe(first!.etag);
    });
  }
}

/** One request with the admin token (or `token`); the body parsed when it is JSON. */
export async function send(
  server: ServerProcess,
  method: string,
  path: string,
  body?: unknown,
  token = SERVER_ADMIN_TOKEN,
) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return {
    status: res.status,
    body: parsed,
    type: res.headers.get('content-type') ?? '',
    retryAfter: res.headers.get('retry-after'),
  };
}
