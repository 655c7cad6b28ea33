// Scores saved at shutdown (docs/POSTGRES.md "Saved scores") with two replicas writing: one
// replica is restarted (SIGTERM, which saves its scores, then a new process on the same database)
// while the other goes on with the mixed writes of ./pgReplicasKit.ts, and once while it is quiet.
// The restarted replica answers every score read as the other does, at its first read and after
// each write that follows, and both as a fresh replica computes from scratch: a saved row is
// restored only while it stands for the data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../support/engine.js';
import { prng } from '../support/prng.js';
import { startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';
import { setupReplicated, type Mixed } from './pgMixedWrites.js';
import { expectSame, Readers } from './pgReplicasKit.js';

/** The start's pass over every competition: how many it restored (src/services/scores/warmStart.ts). */
async function restored(s: ServerProcess): Promise<number> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const line = s
      .output()
      .split('\n')
      .find((l) => l.includes('"restored"'));
    if (line) return (JSON.parse(line) as { restored: number }).restored;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no start summary in the server's output:\n${s.output()}`);
}

describe.runIf(TEST_ENGINE === 'postgres')('a replica restarted while another writes', () => {
  let tmp: TempDir;
  let dbPath: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let mixed: Mixed;
  beforeAll(async () => {
    tmp = tempDir('replica-restart');
    dbPath = `${tmp.dir}/shared.db`;
    [a, b] = await Promise.all([startServer({ dbPath, logLevel: 'info' }), startServer({ dbPath, logLevel: 'info' })]);
    mixed = await setupReplicated(b);
  }, 90_000);
  afterAll(async () => {
    await stopAllServers();
    tmp?.remove();
  });

  /** Writes to `b` until `stop`; every answer below 500. */
  async function writeOn(rng: ReturnType<typeof prng>, stop: () => boolean, prefix: string): Promise<number> {
    let n = 0;
    while (!stop()) {
      const op = await mixed.one(rng, b, prefix);
      expect(op.status, `${op.kind}: ${op.text}`).toBeLessThan(500);
      n++;
    }
    return n;
  }

  it('restores only what still stands, and answers as the other replica from its first read', async () => {
    const rng = prng(6406);
    const readers = new Readers();
    for (let round = 0; round < 4; round++) {
      // Warm on both, so that the SIGTERM has scores to save.
      for (let i = 0; i < 5; i++) await mixed.one(rng, rng.pick([a, b]), `w${round}-`);
      expectSame(await readers.all([a, b]), [a, b], `round ${round}'s writes`);
      const quiet = round % 2 === 1;
      let stop = false;
      const writing = quiet ? Promise.resolve(0) : writeOn(prng(300 + round), () => stop, `r${round}-`);
      try {
        expect(await a.stop('SIGTERM')).toEqual({ code: 0, signal: null });
        expect(a.output()).toContain('scores saved for the next start');
        a = await startServer({ dbPath, logLevel: 'info' });
      } finally {
        stop = true;
      }
      const writes = await writing;
      const got = await restored(a);
      console.log(`round ${round}: ${quiet ? 'quiet' : `${writes} writes on b meanwhile`}; restored ${got}`);
      // Quiet, the row stands for the data and is restored. Under writes it is, only if none of
      // them bumped the competition's version since the save (a snapshot, a refused write).
      if (quiet) expect(got).toBe(1);
      expectSame(await readers.all([a, b]), [a, b], `round ${round}'s restart`);
      // A write on the other replica after the restore shows on the restarted one at once.
      for (let i = 0; i < 3; i++) {
        await mixed.one(rng, b, `after${round}-`);
        expectSame(await readers.all([a, b]), [a, b], `a write after round ${round}'s restart`);
      }
    }
    const fresh = await startServer({ dbPath });
    expectSame(await new Readers().all([a, b, fresh]), [a, b, fresh], 'a fresh replica');
    await mixed.expectStored(fresh);
  }, 120_000);
});
