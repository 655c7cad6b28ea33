// Parses import files in one long-lived worker thread (src/qna/parseWorker), started on first use
// and kept without holding the process open.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workerThread.js';
import type { QnaImportFormat } from './parseImport.js';
import type { QnaProblem } from './problems.js';
import type { QnaTask } from './types.js';

export type ParsedFile = { ok: true; tasks: QnaTask[] } | { ok: false; problems: QnaProblem[]; more: number };

interface Job {
  tasks: QnaTask[];
  resolve(p: ParsedFile): void;
  reject(e: Error): void;
}
type Message = {
  id: number;
  tasks?: QnaTask[];
  done?: { ok: boolean; problems?: QnaProblem[]; more?: number };
  failed?: string;
};

let worker: Worker | null = null;
const jobs = new Map<number, Job>();
let nextId = 1;

function shared(): Worker {
  if (worker) return worker;
  const w = (worker = startWorker('parseWorker', import.meta.url));
  const fail = (e: Error) => {
    worker = null;
    for (const job of jobs.values()) job.reject(e);
    jobs.clear();
  };
  w.on('message', (m: Message) => {
    const job = jobs.get(m.id);
    if (!job) return;
    if (m.tasks) for (const t of m.tasks) job.tasks.push(t);
    if (!m.done && m.failed === undefined) return;
    jobs.delete(m.id);
    if (jobs.size === 0) w.unref();
    if (m.failed !== undefined) job.reject(new Error(`import parser failed: ${m.failed}`));
    else if (m.done!.ok) job.resolve({ ok: true, tasks: job.tasks });
    else job.resolve({ ok: false, problems: m.done!.problems!, more: m.done!.more ?? 0 });
  });
  w.once('error', fail);
  w.once('exit', (code) => fail(new Error(`import parser exited (${code})`)));
  w.unref();
  return w;
}

/** Parses `path` in the worker; rejects only when the worker itself fails (not for bad rows). */
export function parseFileInWorker(path: string, format: QnaImportFormat): Promise<ParsedFile> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    jobs.set(id, { tasks: [], resolve, reject });
    const w = shared();
    w.ref(); // a job in flight keeps the process alive until it answers
    w.postMessage({ id, path, format });
  });
}
