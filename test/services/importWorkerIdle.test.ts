// The import worker stops once no import has used it for a while, and the next import starts a
// new one (src/services/importInWorker.ts).
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { feedFileFromWorker, importWorkerRunning, setImportWorkerIdleMs } from '../../src/services/importInWorker.js';
import type { QnaTask } from '../../src/qna/types.js';

const FILE = fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The file's tasks as the worker hands them over. */
async function parseFileInWorker(path: string, format: 'jsonl') {
  return feedFileFromWorker(path, format, async (feed) => {
    const tasks: QnaTask[] = [];
    await feed(async (batch) => void tasks.push(...batch));
    return tasks;
  });
}

afterAll(() => setImportWorkerIdleMs(30_000));

it('stops the worker after its idle time and starts a new one for the next import', async () => {
  setImportWorkerIdleMs(300);
  const first = await parseFileInWorker(FILE, 'jsonl');
  expect(first.ok && first.stored.length).toBe(124);
  expect(importWorkerRunning()).toBe(true);
  await sleep(100);
  // Used again within the idle time: the timer starts over.
  await parseFileInWorker(FILE, 'jsonl');
  await sleep(250);
  expect(importWorkerRunning()).toBe(true);
  await sleep(400);
  expect(importWorkerRunning()).toBe(false);
  const again = await parseFileInWorker(FILE, 'jsonl');
  expect(again.ok && again.stored.length).toBe(124);
});

it('an import that starts as the idle worker is being stopped gets a new worker, not a failure', async () => {
  setImportWorkerIdleMs(0);
  await parseFileInWorker(FILE, 'jsonl');
  // The timer fires on the next turn; imports started around it all answer.
  const results = await Promise.all(
    [0, 1, 2, 5, 10].map(async (ms) => {
      await sleep(ms);
      return parseFileInWorker(FILE, 'jsonl');
    }),
  );
  for (const r of results) expect(r.ok && r.stored.length).toBe(124);
});

it('a store that fails part way stops the read, and the worker serves the next import', async () => {
  setImportWorkerIdleMs(30_000);
  const taken: number[] = [];
  const failed = feedFileFromWorker(FILE, 'jsonl', async (feed) => {
    await feed(async (batch) => {
      taken.push(batch.length);
      if (taken.length === 1) throw new Error('storage said no');
    });
  });
  await expect(failed).rejects.toThrow('storage said no');
  // One batch handed over, none after it: the worker waited for the next request, then stopped.
  expect(taken).toEqual([64]);
  const again = await parseFileInWorker(FILE, 'jsonl');
  expect(again.ok && again.stored.length).toBe(124);
});
