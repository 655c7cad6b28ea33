// A worker thread that stops under a job (crashed, killed) is counted on /metrics by worker and
// logged, through the real app: the import worker stopped part way through an import.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { importWorkerRunning, terminateImportWorkerForTests } from '../../src/services/importInWorker.js';
import { writeBigJsonl } from '../cli/bigJsonl.js';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('worker-stops');
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
});

const stops = (text: string) =>
  Number(/^scoring_worker_stops_total\{worker="importWorker"\} (\d+)$/m.exec(text)?.[1] ?? 0);

describe.runIf(TEST_ENGINE === 'sqlite')('worker threads stopped under a job', () => {
  it('the import worker killed mid-import: counted, logged, and the import a 503 import-worker-stopped', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    t = await testApp({ path: join(dir.dir, 'db.sqlite'), logger: { level: 'info', stream } });
    await seedCompetition(t, 'c');
    const file = join(dir.dir, 'big.jsonl');
    writeBigJsonl(file, 20 * 1024 * 1024);
    const before = stops((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    const importing = t.app.inject({
      method: 'POST',
      url: '/v1/competitions/c/tasks/import',
      headers: { ...admin, 'content-type': 'application/x-ndjson' },
      payload: readFileSync(file),
    });
    // An import is several jobs (read, commit); between them the worker idles. Killed until the import
    // answers, it is killed under one.
    let answered = false;
    void importing.finally(() => (answered = true));
    while (!answered) {
      if (importWorkerRunning()) await terminateImportWorkerForTests();
      await new Promise((r) => setTimeout(r, 5));
    }
    const res = await importing;
    expect(res.statusCode, res.body).toBe(503);
    expect(stops((await t.app.inject({ method: 'GET', url: '/metrics' })).body)).toBeGreaterThan(before);
    const stopped = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'worker thread stopped');
    expect(stopped).toMatchObject({ level: 40, worker: 'importWorker', jobs: 1 });
    expect(JSON.parse(res.body)).toMatchObject({ type: 'urn:swe-scoring:problem:unavailable' });
    expect(lines.some((l) => l.includes('"msg":"import worker stopped"') && l.includes('import-worker-stopped'))).toBe(
      true,
    );
  }, 60_000);
});
