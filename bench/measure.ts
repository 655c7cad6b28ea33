// Timing helpers, HTTP helpers and the floor: one plain GROUP BY scan of the runs table.
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface Stats {
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  samples: number;
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

export function stats(times: number[]): Stats {
  const s = [...times].sort((a, b) => a - b);
  return {
    medianMs: round(percentile(s, 0.5), 3),
    p95Ms: round(percentile(s, 0.95), 3),
    minMs: round(s[0] ?? NaN, 3),
    maxMs: round(s[s.length - 1] ?? NaN, 3),
    samples: s.length,
  };
}

/** A failed request: the benchmark stops, prints it and exits non-zero. */
export class RequestFailed extends Error {}

export interface Call {
  method?: string;
  body?: string;
  token?: string;
  contentType?: string;
  expect?: number[];
}

/** Sends a request, reads the whole body, and throws unless the status is expected. */
export async function call(baseUrl: string, path: string, c: Call = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
  const method = c.method ?? (c.body === undefined ? 'GET' : 'POST');
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, { method, headers, body: c.body });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new RequestFailed(
      `${method} ${path}: ${(err as Error).message} (${cause?.code ?? cause?.message ?? 'no cause'})`,
    );
  }
  const text = await res.text();
  if (!(c.expect ?? [200, 201]).includes(res.status)) {
    throw new RequestFailed(`${method} ${path} -> ${res.status}: ${text.slice(0, 600)}`);
  }
  return { status: res.status, text };
}

export async function callJson<T>(baseUrl: string, path: string, c: Call = {}): Promise<T> {
  return JSON.parse((await call(baseUrl, path, c)).text) as T;
}

/** Milliseconds taken by one awaited call. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** The connections of `timedRead`, kept alive between reads as fetch keeps its own. */
const readAgent = new Agent({ keepAlive: true });
/** What fetch (undici) asks by default: the server does the same work for a timed read as for `call`. */
const FETCH_ACCEPT_ENCODING = 'gzip, deflate';

/**
 * Milliseconds from sending a GET to the last byte of its answer, asked as fetch asks
 * (`accept-encoding: gzip, deflate`) and not decoded while timed: the server's latency, without the
 * client's decoding. fetch decodes through a web stream fed by zlib's streaming inflate, which at 4x
 * (a 137 kB gzip of a 498 kB leaderboard) added 4 to 6 ms to a 3.5 ms read (bench/README.md,
 * 2026-12-06), more than the server's whole CPU for it. The body is decoded after the timer stops
 * (a damaged one throws), and a status other than 200 throws.
 */
export async function timedRead(baseUrl: string, path: string): Promise<number> {
  const start = performance.now();
  const { status, encoding, body } = await new Promise<{ status: number; encoding: string; body: Buffer }>(
    (resolve, reject) => {
      const req = request(`${baseUrl}${path}`, {
        agent: readAgent,
        headers: { accept: '*/*', 'accept-encoding': FETCH_ACCEPT_ENCODING },
      });
      req.on('error', (err) => reject(new RequestFailed(`GET ${path}: ${err.message}`)));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: String(res.headers['content-encoding'] ?? 'identity'),
            body: Buffer.concat(chunks),
          }),
        );
      });
      req.end();
    },
  );
  const ms = performance.now() - start;
  const decode = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync }[encoding];
  const text = (decode ? decode(body) : body).toString('utf8');
  if (status !== 200) throw new RequestFailed(`GET ${path} -> ${status}: ${text.slice(0, 600)}`);
  return ms;
}

export interface Floor extends Stats {
  groups: number;
  rows: number;
  /** SQLite's plan for the scan. */
  plan: string;
}

/**
 * The floor: what computing the per-(task, miner) inputs straight from the runs costs. One
 * `GROUP BY task_id, miner_hotkey` scan with counts, resolved sums and weighted token sums under
 * the SPEC 2 validity rule, on its own read-only connection; one warm-up, then `repeats` timed.
 */
export function floorScan(
  dbPath: string,
  competitionId: string,
  w: { input: number; cachedInput: number; output: number },
  repeats = 5,
): Floor {
  const db = new Database(dbPath, { readonly: true });
  try {
    const weighted = 'tokens_input * @wi + coalesce(tokens_cached_input, 0) * @wc + tokens_output * @wo';
    const valid = `(tokens_input IS NOT NULL AND tokens_output IS NOT NULL AND tokens_input >= 0 AND tokens_output >= 0
      AND coalesce(tokens_cached_input, 0) >= 0 AND ${weighted} > 0)`;
    const sql = `SELECT task_id, miner_hotkey, count(*), sum(resolved),
        sum(CASE WHEN ${valid} THEN 1 ELSE 0 END), sum(CASE WHEN ${valid} THEN ${weighted} ELSE 0 END),
        sum(CASE WHEN resolved AND ${valid} THEN 1 ELSE 0 END), sum(CASE WHEN resolved AND ${valid} THEN ${weighted} ELSE 0 END)
      FROM runs WHERE competition_id = @id GROUP BY task_id, miner_hotkey`;
    const scan = db.prepare(sql).raw();
    const params = { id: competitionId, wi: w.input, wc: w.cachedInput, wo: w.output };
    const rows = db.prepare('SELECT count(*) FROM runs WHERE competition_id = ?').pluck().get(competitionId) as number;
    let groups = scan.all(params).length;
    const times: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const start = performance.now();
      groups = scan.all(params).length;
      times.push(performance.now() - start);
    }
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
      .map((p) => p.detail)
      .join('; ');
    return { ...stats(times), groups, rows, plan };
  } finally {
    db.close();
  }
}

/** CPU time of every thread of a process so far, in ns (/proc/<pid>/task/<tid>/schedstat). */
export function cpuNs(pid: number): number {
  let n = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      n += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread gone meanwhile
    }
  }
  return n;
}
