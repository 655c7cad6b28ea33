// Worker thread entry for POST /v1/score (the main thread's side is ./scoreInWorker.ts): one
// document a worker. It scores the document in `workerData`, posts the answer's bytes (moved, not
// copied) or the failure, and ends; the main thread bounds its memory and its time.
import { parentPort, workerData } from 'node:worker_threads';
import { scoreInputDocument } from './offline.js';
import type { ScoreJob, ScoreReply } from './scoreInWorker.js';
import { failure } from '../workerFailure.js';

const job = workerData as ScoreJob;
const port = parentPort!;
try {
  const answer = scoreInputDocument(job.body, job.stages, job.limits);
  port.postMessage({ answer } satisfies ScoreReply, [answer.buffer as ArrayBuffer]);
} catch (e) {
  port.postMessage({ failed: failure(e) } satisfies ScoreReply);
}
