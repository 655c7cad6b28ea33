// An import's batches staged to a spool file (src/services/stagedTasks.ts): read back in the
// batches and order they came in, with no await between them but the taker's own (on PostgreSQL
// the transaction reading them holds the competition's row); the spool file goes with `remove`,
// and at once when the feed fails.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import type { QnaTask } from '../../src/qna/index.js';
import { stageTasks } from '../../src/services/stagedTasks.js';

const spools = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith(`swe-scoring-import-${process.pid}-`)));
const task = (id: string) => ({ id, prompt: `prompt of ${id} \u00e9\u{1F600}` }) as unknown as QnaTask;

it('hands the batches back as they came, each awaited, nothing else awaited between them', async () => {
  const before = spools();
  const batches = [[task('a'), task('b')], [task('c')], [task('d'), task('e'), task('f')]];
  const staged = await stageTasks(async (take) => {
    for (const b of batches) {
      await new Promise((r) => setTimeout(r, 5)); // the worker reading the file again
      await take(b);
    }
  });
  const seen: QnaTask[][] = [];
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  await new Promise((r) => setTimeout(r, 5));
  const start = turns;
  await staged.feed(async (batch) => void seen.push(batch));
  const during = turns - start;
  clearInterval(ticker);
  expect(seen).toEqual(batches);
  expect(during, 'the staged feed waited on timers or I/O').toBe(0);
  staged.remove();
  expect(spools()).toEqual(before);
});

it('removes the spool file when the feed fails', async () => {
  const before = spools();
  const failure = await stageTasks(async (take) => {
    await take([task('a')]);
    throw new Error('the worker stopped');
  }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(failure?.message).toBe('the worker stopped');
  expect(spools()).toEqual(before);
  expect(existsSync(tmpdir())).toBe(true);
});
