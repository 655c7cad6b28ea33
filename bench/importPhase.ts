// Reads during a big import: a QnA task file of about `mb` MB (the SWE-Atlas fixture's rows
// repeated under new task ids) goes through the import-session API (open, 8 MiB chunks, commit)
// into a competition of its own, while a reader loop in a child process times score reads of the
// benchmark competition, one at a time.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { call, callJson, percentile } from './measure.js';

const QNA_FILE = new URL('../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url);
const CHUNK = 8 * 1024 * 1024;

/** About `mb` MB of JSON Lines: the fixture's rows again and again, each under a fresh 24-hex task id. */
export function bigQnaFile(mb: number): { bytes: Buffer; rows: number } {
  const lines = readFileSync(QNA_FILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    const row = JSON.parse(lines[i % lines.length]!) as { task_id: string };
    row.task_id = `${i.toString(16).padStart(8, '0')}${'0'.repeat(16)}`;
    const line = JSON.stringify(row);
    out.push(line);
    size += line.length + 1;
  }
  return { bytes: Buffer.from(`${out.join('\n')}\n`, 'utf8'), rows: out.length };
}

export interface ImportUnderReads {
  fileMb: number;
  rows: number;
  uploadSeconds: number;
  commitSeconds: number;
  reads: number;
  readP50Ms: number;
  readP99Ms: number;
  readMaxMs: number;
  /** Reads slower than 50 ms. */
  readsOver50Ms: number;
}

interface ReaderReply {
  latencies: number[];
  failures: string[];
}

const r2 = (v: number) => Math.round(v * 100) / 100;

export async function importUnderReads(
  url: string,
  admin: string,
  competitionId: string,
  readPaths: string[],
  mb: number,
): Promise<ImportUnderReads> {
  const { bytes, rows } = bigQnaFile(mb);
  const target = `${competitionId}-import`;
  await call(url, `/v1/competitions/${target}`, {
    token: admin,
    method: 'PUT',
    body: JSON.stringify({ name: 'Benchmark import' }),
  });
  const reader = fork(new URL('./readerChild.ts', import.meta.url));
  const replied = new Promise<ReaderReply>((resolve, reject) => {
    reader.once('error', reject);
    reader.on('message', (m: ReaderReply | 'started') => m !== 'started' && resolve(m));
  });
  await new Promise<void>((resolve) => {
    reader.once('message', () => resolve());
    reader.send({ baseUrl: url, paths: readPaths });
  });
  try {
    await new Promise((r) => setTimeout(r, 300)); // a few reads before the import starts
    const base = `/v1/competitions/${target}/tasks/imports`;
    const t0 = performance.now();
    const session = await callJson<{ sessionId: string }>(url, base, {
      token: admin,
      body: JSON.stringify({ format: 'jsonl', complexity: 'long' }),
    });
    for (let n = 0, at = 0; at < bytes.length; n++, at += CHUNK) {
      const res = await fetch(`${url}${base}/${session.sessionId}/chunks/${n}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(bytes.subarray(at, at + CHUNK)),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`import chunk ${n} -> ${res.status}: ${text.slice(0, 400)}`);
    }
    const t1 = performance.now();
    const done = await callJson<{ imported: number }>(url, `${base}/${session.sessionId}/commit`, {
      token: admin,
      method: 'POST',
    });
    const t2 = performance.now();
    if (done.imported !== rows) throw new Error(`import: ${done.imported} tasks stored of ${rows}`);
    await new Promise((r) => setTimeout(r, 300)); // and a few after
    reader.send('stop');
    const { latencies, failures } = await replied;
    if (failures.length > 0) throw new Error(`reads during the import failed: ${failures.slice(0, 5).join('; ')}`);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      fileMb: r2(bytes.length / 1e6),
      rows,
      uploadSeconds: r2((t1 - t0) / 1000),
      commitSeconds: r2((t2 - t1) / 1000),
      reads: sorted.length,
      readP50Ms: r2(percentile(sorted, 0.5)),
      readP99Ms: r2(percentile(sorted, 0.99)),
      readMaxMs: r2(sorted[sorted.length - 1] ?? NaN),
      readsOver50Ms: sorted.filter((v) => v > 50).length,
    };
  } finally {
    if (reader.connected) reader.kill();
  }
}
