// Reads during a big import: a QnA task file of about `mb` MB (the SWE-Atlas fixture's rows
// repeated under new task ids) goes through the import-session API (open, 8 MiB chunks, commit)
// into a competition of its own, while a reader loop (reader.ts) times score reads of the
// benchmark competition, one at a time.
import { readFileSync } from 'node:fs';
import { call, callJson } from './measure.js';
import { readDuring, type ReadsDuring } from './reader.js';

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
  reads: ReadsDuring;
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
  const base = `/v1/competitions/${target}/tasks/imports`;
  const { result, reads } = await readDuring(url, readPaths, async () => {
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
    return { uploadSeconds: r2((t1 - t0) / 1000), commitSeconds: r2((t2 - t1) / 1000) };
  });
  return { fileMb: r2(bytes.length / 1e6), rows, ...result, reads };
}
