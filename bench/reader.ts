// Score reads timed while something else happens on the server: a reader loop in a child process
// (readerChild.ts), one request at a time over the given paths, started before `work` and
// stopped after it, with a few reads on either side.
import { fork } from 'node:child_process';
import { percentile } from './measure.js';

export interface ReadsDuring {
  reads: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Reads slower than 50 ms. */
  over50Ms: number;
}

interface ReaderReply {
  latencies: number[];
  failures: string[];
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function readDuring<T>(
  url: string,
  paths: string[],
  work: () => Promise<T>,
): Promise<{ result: T; reads: ReadsDuring }> {
  const reader = fork(new URL('./readerChild.ts', import.meta.url));
  try {
    const replied = new Promise<ReaderReply>((resolve, reject) => {
      reader.once('error', reject);
      reader.on('message', (m: ReaderReply | 'started') => m !== 'started' && resolve(m));
    });
    await new Promise<void>((resolve) => {
      reader.once('message', () => resolve());
      reader.send({ baseUrl: url, paths });
    });
    await pause(300);
    const result = await work();
    await pause(300);
    reader.send('stop');
    const { latencies, failures } = await replied;
    if (failures.length > 0) throw new Error(`reads failed: ${failures.slice(0, 5).join('; ')}`);
    const sorted = [...latencies].sort((a, b) => a - b);
    const reads = {
      reads: sorted.length,
      p50Ms: r2(percentile(sorted, 0.5)),
      p99Ms: r2(percentile(sorted, 0.99)),
      maxMs: r2(sorted[sorted.length - 1] ?? NaN),
      over50Ms: sorted.filter((v) => v > 50).length,
    };
    return { result, reads };
  } finally {
    if (reader.connected) reader.kill();
  }
}
