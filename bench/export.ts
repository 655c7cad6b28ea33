// Export benchmark: the real server as a child process, the reference competition ingested over
// HTTP, then every runs export format (and the tasks export) streamed to this process, with the
// server's resident memory sampled every 50 ms from /proc.
//   npm run bench:export [-- --size small|reference] [--seed N]
// Prints a table, writes bench/export-results.json (git-ignored). Exits non-zero when a request
// fails or an export does not hold every stored run; asserts nothing about speed or memory.
// BENCH_KEEP_DB=1 keeps the database.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parquetMetadata } from 'hyparquet';
import { SIZES, buildCompetition, runBatches, sweTaskInputs } from './generate.js';
import { join } from 'node:path';
import { startServer } from '../test/support/serverProcess.js';
import { tempDir } from '../test/support/tempDir.js';
import { call, callJson } from './measure.js';

const ADMIN = `bench-admin-token-${process.pid}`; // at least 16 characters, whatever the pid
const C = 'bench';
const log = (msg: string) => console.log(`[bench:export] ${msg}`);

const { values } = parseArgs({
  options: { size: { type: 'string', default: 'reference' }, seed: { type: 'string', default: '1' } },
});
if (values.size !== 'reference' && values.size !== 'small')
  throw new Error(`--size must be reference or small, got ${values.size}`);
const size = values.size;

/** VmRSS of a process in MB, or null where /proc is missing. */
function rssMb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Streams one export, counting bytes and line ends (outside quotes for the tasks CSV, whose text
 * fields hold line ends; a doubled quote toggles twice). The bytes are kept only for Parquet. */
async function download(url: string, pid: number, keep: boolean, quotedLines: boolean) {
  let max = 0;
  const sampler = setInterval(() => (max = Math.max(max, rssMb(pid) ?? 0)), 50);
  const before = rssMb(pid) ?? 0;
  const start = performance.now();
  // The server's own cost of the file, as in earlier runs: no compression (fetch asks gzip by default).
  const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  if (res.status !== 200 || !res.body) throw new Error(`GET ${url} -> ${res.status}: ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  let quoted = false;
  const kept: Uint8Array[] = [];
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (keep) kept.push(chunk);
    else if (!quotedLines) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    else
      for (const b of chunk) {
        if (b === 34) quoted = !quoted;
        else if (b === 10 && !quoted) lines++;
      }
  }
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  max = Math.max(max, rssMb(pid) ?? 0);
  return { seconds, bytes, lines, rssBeforeMb: before, rssMaxMb: max, file: keep ? Buffer.concat(kept) : null };
}

async function main() {
  const c = buildCompetition(SIZES[size], Number(values.seed));
  const { bodies, counts, total } = runBatches(c, 1000);
  const tmp = tempDir('bench-export');
  const dbPath = join(tmp.dir, 'bench.db');
  const server = await startServer({ dbPath, adminToken: ADMIN });
  const url = server.baseUrl;
  const results: Record<string, unknown>[] = [];
  try {
    const admin = { token: ADMIN };
    await call(url, `/v1/competitions/${C}`, {
      ...admin,
      method: 'PUT',
      body: JSON.stringify({ name: 'Export benchmark' }),
    });
    await call(url, `/v1/competitions/${C}/tasks`, {
      ...admin,
      method: 'PUT',
      body: JSON.stringify({ tasks: sweTaskInputs(c) }),
    });
    for (const imp of c.qnaImports) {
      await call(url, `/v1/competitions/${C}/tasks/import?complexity=${imp.complexity}`, {
        ...admin,
        body: imp.body,
        contentType: 'application/x-ndjson',
      });
    }
    const { apiKey } = await callJson<{ apiKey: string }>(url, '/v1/validators', {
      ...admin,
      body: JSON.stringify({ name: 'bench' }),
    });
    log(`ingesting ${total} runs...`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < bodies.length) {
          const i = next++;
          const r = await callJson<{ accepted: number }>(url, `/v1/competitions/${C}/runs`, {
            token: apiKey,
            body: bodies[i]!,
          });
          if (r.accepted !== counts[i]) throw new Error(`batch ${i}: accepted ${r.accepted} of ${counts[i]}`);
        }
      }),
    );
    bodies.length = 0;
    const idle = rssMb(server.pid);
    log(`server RSS after ingest: ${idle?.toFixed(0)} MB; exporting...`);
    for (const [what, format] of [
      ['runs', 'ndjson'],
      ['runs', 'csv'],
      ['runs', 'parquet'],
      ['tasks', 'ndjson'],
      ['tasks', 'csv'],
    ] as const) {
      const d = await download(
        `${url}/v1/competitions/${C}/${what}/export?format=${format}`,
        server.pid,
        format === 'parquet',
        what === 'tasks' && format === 'csv',
      );
      const rows = d.file
        ? Number(
            parquetMetadata(d.file.buffer.slice(d.file.byteOffset, d.file.byteOffset + d.file.byteLength)).num_rows,
          )
        : d.lines - (format === 'csv' ? 1 : 0);
      const expected = what === 'runs' ? total : c.tasks.length;
      if (rows !== expected) throw new Error(`${what} ${format}: ${rows} rows, expected ${expected}`);
      const r = {
        export: `${what} ${format}`,
        rows,
        mb: +(d.bytes / 1e6).toFixed(1),
        seconds: +d.seconds.toFixed(2),
        rowsPerSecond: Math.round(rows / d.seconds),
        mbPerSecond: +(d.bytes / 1e6 / d.seconds).toFixed(1),
        rssBeforeMb: Math.round(d.rssBeforeMb),
        rssMaxMb: Math.round(d.rssMaxMb),
        rssRiseMb: Math.round(d.rssMaxMb - d.rssBeforeMb),
      };
      results.push(r);
      log(JSON.stringify(r));
    }
    const rise = Math.round(Math.max(...results.map((r) => r.rssMaxMb as number)) - (idle ?? 0));
    console.log(
      `\nexports, size ${size} (${total} runs, ${c.tasks.length} tasks), server RSS before the first export ${idle?.toFixed(0)} MB`,
    );
    console.table(results);
    console.log(`largest RSS rise over the RSS before the first export: ${rise} MB (target < 50 MB)`);
    writeFileSync(
      new URL('./export-results.json', import.meta.url),
      `${JSON.stringify({ date: new Date().toISOString(), size, runs: total, rssBeforeMb: idle, rssRiseMb: rise, results }, null, 2)}\n`,
    );
  } finally {
    await server.stop();
    if (process.env.BENCH_KEEP_DB) log(`database kept: ${dbPath}`);
    else tmp.remove();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`[bench:export] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
