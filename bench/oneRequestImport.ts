// Score reads during 30 MB one-request task imports (POST …/tasks/import), three in a row, against
// the compiled server of a checkout (default this one; `npm run build` first): the slowest read
// and the server's peak RSS say whether the upload held the event loop or the heap.
//   npm run bench:import [-- --dir /path/to/another/checkout]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bigQnaFile } from './importPhase.js';
import { freePort } from '../test/support/freePort.js';
import { readDuring } from './reader.js';

const { values } = parseArgs({
  options: { dir: { type: 'string', default: '.' }, mb: { type: 'string', default: '30' } },
});
const ADMIN = 'bench-admin-token-one-request-import';
const headers = { authorization: `Bearer ${ADMIN}` };
const tmp = mkdtempSync(join(tmpdir(), 'swe-scoring-bench-import-'));
const port = await freePort();
const server = spawn(process.execPath, [join(values.dir, 'dist/server.js')], {
  cwd: values.dir,
  env: {
    ...process.env,
    DATABASE_PATH: join(tmp, 'bench.db'),
    PORT: String(port),
    HOST: '127.0.0.1',
    SCORING_ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'warn',
    MALLOC_MMAP_THRESHOLD_: '131072', // as the Docker image and `npm start` (src/heap.ts)
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const url = `http://127.0.0.1:${port}`;
const peakMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
const put = (id: string) =>
  fetch(`${url}/v1/competitions/${id}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: id }),
  });

try {
  for (let i = 0; ; i++) {
    if (i > 300) throw new Error('the server did not become ready in 30 s');
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await put('read');
  const { bytes, rows } = bigQnaFile(Number(values.mb));
  for (let round = 0; round < 3; round++) {
    const id = `import-${round}`;
    await put(id);
    const before = peakMb();
    const { result: ms, reads } = await readDuring(
      url,
      ['/v1/competitions/read/leaderboard', '/v1/competitions/read/weights'],
      async () => {
        const t0 = performance.now();
        const res = await fetch(`${url}/v1/competitions/${id}/tasks/import`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-ndjson' },
          body: new Uint8Array(bytes),
        });
        const body = (await res.json()) as { imported?: number };
        if (res.status !== 200 || body.imported !== rows)
          throw new Error(`import -> ${res.status} ${JSON.stringify(body)}`);
        return Math.round(performance.now() - t0);
      },
    );
    console.log(
      `${(bytes.length / 1e6).toFixed(1)} MB one-request import ${round + 1}: ${ms} ms; ${reads.reads} reads meanwhile, ` +
        `p99 ${reads.p99Ms} ms, max ${reads.maxMs} ms, ${reads.over50Ms} over 50 ms; server peak RSS ${before.toFixed(0)} -> ${peakMb().toFixed(0)} MB`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(tmp, { recursive: true, force: true });
}
