// Issue 11: what snapshots and the run-sequence design (runs.seq AUTOINCREMENT, deleted runs kept
// in deleted_runs) cost: a snapshot's time and size and its input document's, and deletions of
// runs through the API. Their storage floors are in floors.ts.
import type { Competition } from './generate.js';
import { call } from './measure.js';
import { readDuring, type ReadsDuring } from './reader.js';

export interface SnapshotCost {
  seq: number;
  /** POST …/snapshots, the scores frozen with their input, sealed and signed. */
  takeMs: number;
  documentBytes: number;
  /** GET …/snapshots/{seq}/input, streamed: the runs read back through the run sequence. */
  inputMs: number;
  inputBytes: number;
  /** Score reads while the snapshot was taken (its POST only). */
  readsDuringTake: ReadsDuring;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

export async function snapshotCost(
  url: string,
  admin: string,
  competitionId: string,
  note: string,
  readPaths: string[],
): Promise<SnapshotCost> {
  const base = `/v1/competitions/${competitionId}/snapshots`;
  const { result, reads } = await readDuring(url, readPaths, async () => {
    const start = performance.now();
    const taken = await call(url, base, { token: admin, body: JSON.stringify({ note }) });
    return { taken, takeMs: performance.now() - start };
  });
  const seq = (JSON.parse(result.taken.text) as { seq: number }).seq;
  const start = performance.now();
  // The document's bytes as the digest covers them, uncompressed (fetch asks gzip by default).
  const res = await fetch(`${url}${base}/${seq}/input`, { headers: { 'accept-encoding': 'identity' } });
  let inputBytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) inputBytes += chunk.length;
  const inputMs = performance.now() - start;
  if (res.status !== 200) throw new Error(`GET ${base}/${seq}/input -> ${res.status}`);
  return {
    seq,
    takeMs: r1(result.takeMs),
    documentBytes: Buffer.byteLength(result.taken.text),
    inputMs: r1(inputMs),
    inputBytes,
    readsDuringTake: reads,
  };
}

/**
 * `2n` distinct miner run ids spread over miners and tasks: the first `n` are deleted through the
 * API (and in the floor, copied to deleted_runs), the rest by the floor's plain DELETE.
 */
export function runsToDelete(c: Competition, n: number): string[] {
  const ids = new Set<string>();
  // Miner 0 takes the cold-read rounds' extra runs: left alone.
  for (let i = 0; ids.size < 2 * n; i++) {
    const miner = c.miners[1 + (i % (c.miners.length - 1))]!;
    const task = c.tasks[(i * 37) % c.tasks.length]!;
    ids.add(`m:${miner.hotkey}:${task.id}:${Math.floor(i / c.miners.length) % c.size.runsPerSide}`);
  }
  return [...ids];
}

export interface DeleteCost {
  deletes: number;
  clients: number;
  seconds: number;
  deletesPerSecond: number;
}

/** DELETE …/runs/{runId} for each id, by the validator that sent them, `clients` at a time. */
export async function deleteThroughApi(
  url: string,
  key: string,
  competitionId: string,
  ids: string[],
  clients: number,
): Promise<DeleteCost> {
  let next = 0;
  const client = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await call(url, `/v1/competitions/${competitionId}/runs/${encodeURIComponent(id)}`, {
        token: key,
        method: 'DELETE',
      });
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  const seconds = (performance.now() - start) / 1000;
  return {
    deletes: ids.length,
    clients,
    seconds: Math.round(seconds * 100) / 100,
    deletesPerSecond: Math.round(ids.length / seconds),
  };
}
