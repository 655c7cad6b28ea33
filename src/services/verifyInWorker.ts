// sr25519 checks on a worker thread (./verifyWorker.ts), not on the event loop. A check takes 1.5
// to 4 ms of CPU, and it runs for every signed request that names a registered hotkey, whose
// hotkeys are public: on the event loop, every other request waited behind each one, and a signed
// batch's check held the loop as long as a third of its storage. Here the loop goes on while the
// worker checks; the request waits for its answer (one message each way, tens of µs).
//
// One thread, started on the first check and stopped once none has come for a minute (validators
// sign every request, so under their traffic it stays). Should it stop while checks are in flight,
// each of them runs here instead: a check's answer is the same wherever it runs.
import { signatureValid, type SignedParts } from '../signatures/epistula.js';
import { onDemandWorker } from '../workerThread.js';

export interface FromVerifyWorker {
  id: number;
  valid: boolean;
}

const IDLE_MS = 60_000;
const verifier = onDemandWorker<FromVerifyWorker>('verifyWorker', import.meta.url, () => IDLE_MS);

/** Whether the worker is running (tests). */
export const verifyWorkerRunning = verifier.running;
/** Stops the worker at once, whatever it is checking (tests: checks in flight then run on the main thread). */
export const terminateVerifyWorkerForTests = verifier.terminate;

/** Whether `parts.signature` is the signer's sr25519 signature of `parts.message`, checked on the worker. */
export function verifyInWorker(parts: SignedParts): Promise<boolean> {
  return new Promise((resolve) => {
    const job = verifier.start(
      (m) => {
        job.end();
        resolve(m.valid);
      },
      () => resolve(signatureValid(parts)),
    );
    try {
      job.worker.postMessage({ id: job.id, ...parts });
    } catch {
      job.end();
      resolve(signatureValid(parts));
    }
  });
}
