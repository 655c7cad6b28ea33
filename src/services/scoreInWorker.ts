// POST /v1/score off the event loop: each document is scored in a worker thread of its own
// (./scoreWorker.ts), whose old generation is capped (SCORING_SCORE_MEMORY_MB) and which is
// stopped past SCORING_SCORE_TIMEOUT_MS. A document past a limit, or one the worker cannot score
// within its memory or time, is a 413 naming the limit; past SCORING_SCORE_CONCURRENCY documents
// at once, a 503 to retry. The worker ends with its document, and its memory with it: the main
// thread holds only the body while the worker runs, and then the answer's bytes, moved to it.
import type { Worker } from 'node:worker_threads';
import { tooLarge, unavailable } from '../errors.js';
import type { Stage } from '../scoring/types.js';
import { startWorker } from '../workerThread.js';
import { LIMIT_SETTINGS, OFFLINE_HINT, type ScoreLimits } from './offline.js';
import { revive, type Failure } from '../workerFailure.js';

export interface ScoreSettings extends ScoreLimits {
  /** The worker's old generation, in MiB. */
  memoryMb: number;
  /** How long a document may take, worker start included. */
  timeoutMs: number;
  /** Documents scored at once; one more is a 503. */
  concurrent: number;
}

/**
 * Far above the reference competition (256 miners, 324 tasks, five runs a side: some 416,000
 * runs), whose document is larger than the request body limit anyway: a document the server's own
 * snapshots could hold scores; one naming 300,000 miners does not.
 */
export const DEFAULT_SCORE_SETTINGS: ScoreSettings = {
  miners: 4096,
  tasks: 4096,
  runs: 1_000_000,
  answerBytes: 16 * 1024 * 1024,
  memoryMb: 512,
  timeoutMs: 30_000,
  concurrent: 2,
};

/** What the worker is given (its `workerData`). */
export interface ScoreJob {
  body: Uint8Array;
  stages: Stage[] | undefined;
  limits: ScoreLimits;
}
export type ScoreReply = { answer: Uint8Array } | { failed: Failure };

/** Scores documents in workers under `settings`: resolves to the answer's JSON bytes. */
export function documentScorer(settings: ScoreSettings = DEFAULT_SCORE_SETTINGS) {
  let running = 0;
  return async function score(body: Uint8Array, stages?: Stage[]): Promise<Uint8Array> {
    if (running >= settings.concurrent)
      throw unavailable(
        `${running} input documents are being scored, as many as the server scores at once ` +
          '(SCORING_SCORE_CONCURRENCY); send it again shortly',
        'scoring-busy',
      );
    running += 1;
    try {
      return await inWorker(body, stages, settings);
    } finally {
      running -= 1;
    }
  };
}

function inWorker(body: Uint8Array, stages: Stage[] | undefined, s: ScoreSettings): Promise<Uint8Array> {
  const { miners, tasks, runs, answerBytes } = s;
  const job: ScoreJob = { body, stages, limits: { miners, tasks, runs, answerBytes } };
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = startWorker('scoreWorker', import.meta.url, {
        limits: { maxOldGenerationSizeMb: s.memoryMb },
        workerData: job,
      });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            tooLarge(
              `scoring the document took longer than ${s.timeoutMs} ms (${LIMIT_SETTINGS.timeoutMs}): ${OFFLINE_HINT}`,
            ),
          ),
        ),
      s.timeoutMs,
    );
    worker.once('message', (m: ScoreReply) =>
      finish(() => ('answer' in m ? resolve(m.answer) : reject(revive(m.failed, 'score worker')))),
    );
    worker.once('error', (e: Error & { code?: string }) =>
      finish(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? tooLarge(
                `scoring the document needs more than ${s.memoryMb} MiB (${LIMIT_SETTINGS.memoryMb}): ${OFFLINE_HINT}`,
              )
            : e,
        ),
      ),
    );
    worker.once('exit', (code) =>
      finish(() => reject(new Error(`score worker: stopped (exit code ${code}) unanswered`))),
    );
  });
}
