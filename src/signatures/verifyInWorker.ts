// Runs `signatureValid` in one long-lived worker thread (./verifyWorker), started on first use and
// kept without holding the process open. sr25519 costs 1.5-5 ms a request (bench:signatures, by
// machine) that would otherwise stop every other request; on the worker it overlaps with the main
// thread's parsing and writing. Only the signed message (a few hundred bytes) crosses over. Should the worker fail, pending
// and later checks run here, on the main thread: slower, never wrong.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workerThread.js';
import { signatureValid, type SignedParts } from './epistula.js';

interface Job {
  parts: SignedParts;
  resolve(valid: boolean): void;
}

let worker: Worker | null = null;
let broken = false;
const jobs = new Map<number, Job>();
let nextId = 1;

function shared(): Worker | null {
  if (worker || broken) return worker;
  const w = (worker = startWorker('verifyWorker', import.meta.url));
  const fail = () => {
    broken = true;
    worker = null;
    for (const job of jobs.values()) job.resolve(signatureValid(job.parts));
    jobs.clear();
  };
  w.on('message', ({ id, valid }: { id: number; valid: boolean }) => {
    const job = jobs.get(id);
    if (!job) return;
    jobs.delete(id);
    if (jobs.size === 0) w.unref();
    job.resolve(valid);
  });
  w.once('error', fail);
  w.once('exit', fail);
  w.unref();
  return w;
}

/** The same answer as `signatureValid(parts)`, computed on the worker thread. */
export function signatureValidInWorker(parts: SignedParts): Promise<boolean> {
  return new Promise((resolve) => {
    const w = shared();
    if (!w) return resolve(signatureValid(parts));
    const id = nextId++;
    jobs.set(id, { parts, resolve });
    w.ref(); // a check in flight keeps the process alive until it answers
    w.postMessage({ id, parts });
  });
}
