// Three server processes on one PostgreSQL database under a mixed load (docs/POSTGRES.md "Several
// processes: no stale read"). Every kind of write (run batches, deletions, validator exclusions,
// task re-tags, settings, judge configurations, metagraphs, snapshots, imports, miner exclusions)
// goes to a replica drawn at random, while other writers post batches to every replica at once;
// after each acknowledgement every score read on every replica answers the same bytes and ETag,
// asked with the ETag that replica gave before (a stale 304 is a lost write). Once quiet, a fourth
// replica started on the same database computes every read from scratch, the same bytes again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { prng } from '../support/prng.js';
import { startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';
import { setupReplicated, type Mixed } from './pgMixedWrites.js';
import { countingWriter, expectSame, read, Readers, READS } from './pgReplicasKit.js';

/** Writes of each test; REPLICAS_SEED (a number) replays the suite with other draws. */
const WRITES = 40;
const SEED = Number(process.env.REPLICAS_SEED ?? 0);

describe.runIf(TEST_ENGINE === 'postgres')('replicas on one PostgreSQL database under a mixed load', () => {
  let tmp: TempDir;
  let dbPath: string;
  let replicas: ServerProcess[];
  let mixed: Mixed;
  beforeAll(async () => {
    tmp = tempDir('replicas');
    dbPath = `${tmp.dir}/shared.db`;
    replicas = await Promise.all([0, 1, 2].map(() => startServer({ dbPath })));
    mixed = await setupReplicated(replicas[0]!);
  }, 90_000);
  afterAll(async () => {
    await stopAllServers();
    tmp?.remove();
  });

  it('every read on every replica reflects each acknowledged write, 304s included; a fresh replica agrees', async () => {
    const rng = prng(6401 + SEED);
    const readers = new Readers();
    expectSame(await readers.all(replicas), replicas, 'setup');
    // Writers in the background, each checking its own runs on another replica after each batch.
    let stop = false;
    const background = [0, 1].map((w) => countingWriter(prng(100 + w), replicas, `bg${w}`, () => stop));
    // And mixed writes of every kind, two at a time, to replicas drawn at random.
    const concurrent = [0, 1].map(async (w) => {
      const crng = prng(110 + w);
      let n = 0;
      for (; !stop; n++) {
        const op = await mixed.one(crng, crng.pick(replicas), `mx${w}-`);
        expect(op.status, `${op.kind}: ${op.text}`).toBeLessThan(500);
      }
      return n;
    });
    const kinds = new Map<string, number>();
    try {
      for (let i = 0; i < WRITES * 0.75; i++) {
        const to = rng.pick(replicas);
        const op = await mixed.one(rng, to, `fg-`);
        expect(op.status, `${op.kind}: ${op.text}`).toBeLessThan(500);
        kinds.set(`${op.kind} ${op.status}`, (kinds.get(`${op.kind} ${op.status}`) ?? 0) + 1);
        // Every replica's reads after this acknowledgement: the background writes mean they may
        // differ between replicas (the background writers check their own runs).
        const answers = await readers.all(replicas);
        for (const list of answers.values()) for (const a of list) expect(a.status).toBeLessThan(500);
      }
    } finally {
      stop = true;
    }
    const backgroundWrites = [...(await Promise.all(background)), ...(await Promise.all(concurrent))];
    console.log(
      `answers by kind and status: ${JSON.stringify(Object.fromEntries(kinds))}; background ${JSON.stringify(backgroundWrites)}`,
    );
    for (const { batches } of await Promise.all(background)) expect(batches).toBeGreaterThan(5);
    // Quiet: every replica answers the same, and so does one started now.
    expectSame(await readers.all(replicas), replicas, 'quiescence');
    const fresh = await startServer({ dbPath });
    const all = [...replicas, fresh];
    expectSame(await new Readers().all(all), all, 'a fresh replica');
    await mixed.expectStored(fresh);
  }, 120_000);

  it('with one writer at a time, the read right after each acknowledgement is the same on every replica', async () => {
    const rng = prng(6402 + SEED);
    const readers = new Readers();
    for (let i = 0; i < WRITES; i++) {
      const to = rng.pick(replicas);
      const op = await mixed.one(rng, to, `seq-`);
      expect(op.status, `${op.kind}: ${op.text}`).toBeLessThan(500);
      const answers = await readers.all(replicas);
      expectSame(answers, replicas, `${op.kind} (${op.status}) on :${to.port}`);
      // Behind a load balancer a client sends one replica's ETag to another: the same bytes, a 304.
      const path = rng.pick(READS);
      const [first] = answers.get(path)!;
      if (first!.status === 200) {
        const other = await read(rng.pick(replicas.slice(1)), path, first!.etag!);
        expect(other.status, `${path} with the ETag of :${replicas[0]!.port}`).toBe(304);
      }
    }
    // Reads whose bytes the write did not change are 304s: that path was taken too.
    console.log(`${readers.notModified} of ${WRITES * READS.length * replicas.length} reads answered 304`);
    expect(readers.notModified).toBeGreaterThan(0);
  }, 120_000);
});
