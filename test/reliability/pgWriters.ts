// Many writers to one competition of a server process on PostgreSQL (issue 43): half bearer-key
// validators, half signing ones (Epistula v2, a fresh signature per request), each posting
// 200-run batches of new runs in a loop, now and then resending one it already saw acknowledged.
// A batch refused with a 503 is kept and sent again by `retryRefused` (a client retries a 503).
// `checkStored` then holds the database to what the writers were told.
import { expect } from 'vitest';
import { keypairFromSeed, serverHotkey, signRequest } from '../../src/client/sign.js';
import { serverDatabase } from '../support/engine.js';
import { http } from '../support/http.js';
import { prng } from '../support/prng.js';
import { COMPETITION, makeRun, setupCompetition, type RunBody } from './fixture.js';

export const WRITERS = 32;
export const BATCH = 200;
const runsPath = `/v1/competitions/${COMPETITION}/runs`;

type Send = (body: string) => Promise<Response>;

export interface Answer {
  writer: number;
  status: number;
  /** Date.now() as the request was sent. */
  startedAt: number;
  ms: number;
  /** For a 503: its Retry-After header and content type. */
  retryAfter: string | null;
  contentType: string;
  text: string;
}

export interface WriterLog {
  answers: Answer[];
  /** Runs of each acknowledged batch, by id. */
  acknowledged: Set<string>;
  /** Every run id sent, acknowledged or not. */
  sent: Set<string>;
  /** Runs accepted (new) as the 200s counted them. */
  accepted: number;
  /** Batches refused with a 503, to send again. */
  refused: { writer: number; body: string; ids: string[] }[];
  /** A request that got no answer at all (the server went away). */
  networkErrors: string[];
}

/** Creates the competition and one validator per writer; returns how each writer sends a body. */
export async function prepareWriters(baseUrl: string, adminToken: string): Promise<Send[]> {
  await setupCompetition((m, p, body) => http(baseUrl, m, p, { token: adminToken, body }));
  const sends: Send[] = [];
  const signedFor = await serverHotkey(baseUrl);
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${baseUrl}${runsPath}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
  for (let w = 0; w < WRITERS; w++) {
    if (w % 2 === 0) {
      const res = await http(baseUrl, 'POST', '/v1/validators', { token: adminToken, body: { name: `bearer-${w}` } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const apiKey = res.body.apiKey as string;
      sends.push((body) => post(body, { authorization: `Bearer ${apiKey}` }));
    } else {
      const key = keypairFromSeed(new Uint8Array(32).fill(w));
      const res = await http(baseUrl, 'POST', '/v1/validators', {
        token: adminToken,
        body: { name: `signer-${w}`, hotkey: key.address },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      sends.push((body) => post(body, signRequest({ key, body, signedFor })));
    }
  }
  return sends;
}

export function emptyLog(): WriterLog {
  return { answers: [], acknowledged: new Set(), sent: new Set(), accepted: 0, refused: [], networkErrors: [] };
}

/** Sends one batch and records what came back. */
async function send(log: WriterLog, writer: number, sendBody: Send, body: string, ids: string[]): Promise<number> {
  for (const id of ids) log.sent.add(id);
  const startedAt = Date.now();
  const started = performance.now();
  let res: Response;
  try {
    res = await sendBody(body);
  } catch (err) {
    log.networkErrors.push(String((err as Error).cause ?? err));
    return 0;
  }
  const text = await res.text();
  log.answers.push({
    writer,
    status: res.status,
    startedAt,
    ms: performance.now() - started,
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type') ?? '',
    text: res.status === 200 ? '' : text.slice(0, 300),
  });
  if (res.status === 200) {
    const r = JSON.parse(text) as { accepted: number; duplicates: number };
    expect(r.accepted + r.duplicates).toBe(ids.length);
    log.accepted += r.accepted;
    for (const id of ids) log.acknowledged.add(id);
  } else if (res.status === 503) {
    log.refused.push({ writer, body, ids });
  }
  return res.status;
}

/** Every writer posts batches until `until()` says stop (or the server stops answering). */
export async function runWriters(sends: Send[], log: WriterLog, until: () => boolean, seed: number): Promise<void> {
  await Promise.all(
    sends.map(async (sendBody, w) => {
      const rng = prng(seed + w);
      const done: { body: string; ids: string[] }[] = [];
      for (let b = 0; !until(); b++) {
        let batch: { body: string; ids: string[] };
        if (done.length > 0 && rng.chance(0.1)) batch = rng.pick(done);
        else {
          const runs: RunBody[] = Array.from({ length: BATCH }, (_, i) => makeRun(rng, `w${w}-b${b}-${i}`));
          batch = { body: JSON.stringify({ runs }), ids: runs.map((r) => r.runId) };
        }
        const status = await send(log, w, sendBody, batch.body, batch.ids);
        if (status === 0) return;
        if (status === 200) done.push(batch);
      }
    }),
  );
}

/** Sends every refused batch again, each until it is stored (200) or 20 s pass. */
export async function retryRefused(sends: Send[], log: WriterLog): Promise<void> {
  const refused = log.refused.splice(0);
  const deadline = Date.now() + 20_000;
  for (const batch of refused) {
    for (;;) {
      const status = await send(log, batch.writer, sends[batch.writer]!, batch.body, batch.ids);
      if (status === 200) break;
      if (Date.now() > deadline) throw new Error(`a refused batch still gets ${status} 20 s after the faults`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  log.refused.length = 0;
}

/**
 * The database against what the writers were told: every acknowledged run stored, once; nothing
 * stored that was not sent; the stored counters agree with the runs. With `exact`, nothing was
 * left in doubt (no 503): the runs the 200s accepted are exactly the runs stored.
 */
export async function checkStored(dbPath: string, log: WriterLog, exact: boolean): Promise<number> {
  const db = serverDatabase(dbPath);
  const ids = (await db.query('SELECT run_id FROM runs')).map((r) => r.run_id as string);
  const stored = new Set(ids);
  expect(stored.size, 'a run stored twice').toBe(ids.length);
  const missing = [...log.acknowledged].filter((id) => !stored.has(id));
  expect(missing.slice(0, 5), `${missing.length} acknowledged runs are not stored`).toEqual([]);
  const unsent = ids.filter((id) => !log.sent.has(id));
  expect(unsent.slice(0, 5), 'runs stored that no writer sent').toEqual([]);
  if (exact) expect(log.accepted).toBe(ids.length);
  const [counts] = await db.query(
    `SELECT (SELECT count(*) FROM runs WHERE kind = 'miner') AS miner_runs,
      (SELECT count(*) FROM runs WHERE kind = 'baseline') AS baseline_runs,
      (SELECT coalesce(sum(runs), 0) FROM miner_tasks) AS miner_sum,
      (SELECT coalesce(sum(baseline_runs), 0) FROM tasks) AS baseline_sum,
      (SELECT coalesce(sum(runs), 0) FROM task_run_counts) AS counted`,
  );
  const n = (k: string) => Number(counts![k]);
  expect(n('miner_sum'), 'miner_tasks against the miner runs').toBe(n('miner_runs'));
  expect(n('baseline_sum'), 'the baseline sums against the baseline runs').toBe(n('baseline_runs'));
  expect(n('counted'), 'task_run_counts against the runs').toBe(ids.length);
  return ids.length;
}

/** The answers' statuses, counted: `{ "200": 812, "503": 4 }`. */
export function statusCounts(log: WriterLog): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of log.answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** The p-th percentile of the answers' times, ms. */
export function percentileMs(log: WriterLog, p: number): number {
  const ms = log.answers.map((a) => a.ms).sort((a, b) => a - b);
  return Math.round(ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] ?? 0);
}
