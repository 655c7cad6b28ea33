// A server's scores across restarts and crashes equal a recompute from scratch. Seeded random
// operations against real server processes on one database: run batches (SWE-bench, QnA with
// rubric votes under judge digests), run deletions, miner and validator exclusions, task re-tags,
// settings, judge configurations and metagraphs (./restartsKit.ts), interleaved with clean restarts
// (SIGTERM: the scores are saved and the next start restores them), SIGKILLs at random moments
// (idle, while a write is in flight, during the shutdown's save, during the start's background fill
// of restored pairs) and a memory budget of 0 MB on some starts (three competitions: those not read
// give their state back). After every step each read of the competitions read (leaderboard, its
// pages and stage sets, weights, weights on chain, a miner, a QnA task, coverage, the criteria
// report, the validators' agreement) is compared byte for byte, ETag included, with the same read
// from a fresh app over a copy of the database whose saved scores are deleted (a full recompute),
// and a conditional read with an earlier ETag must not be a 304 once that body changed
// (./restartsReads.ts). Error answers (a 404 miner, a 409 chain read with no metagraph) are compared
// too.
//
// RESTARTS_SEEDS=1,2,3 runs other seeds (default one fixed seed), RESTARTS_STEPS the steps of each.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { prng, shuffle, type Rng } from '../support/prng.js';
import { startServer, stopAllServers, type ServerProcess } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';
import { COMPETITIONS, HOTKEYS, randomWrite, readPaths, setUp, syncJudges, type World } from './restartsKit.js';
import { readChecker, recompute } from './restartsReads.js';

const SEEDS = (process.env.RESTARTS_SEEDS ?? '0x5eed0065').split(',').map(Number);
const STEPS = Number(process.env.RESTARTS_STEPS ?? 24);
const ADMIN = 'restarts-admin-token-0123456789abcdef';

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A start on the file: a memory budget of 0 (only the competition used last keeps its state) or of 16 MB. */
function start(dbPath: string, rng: Rng, budget = rng.pick(['0', '16'])): Promise<ServerProcess> {
  return startServer({ dbPath, adminToken: ADMIN, env: { SCORING_MEMORY_BUDGET_MB: budget } });
}

for (const seed of SEEDS)
  it(`reads equal a recompute across restarts and crashes (seed ${seed})`, async () => {
    const tmp = tempDir('restarts');
    const dbPath = join(tmp.dir, 'scoring.db');
    const rng = prng(seed);
    const world: World = { rng, admin: ADMIN, dbPath, validators: [], judges: new Map(), nextRun: 0, block: 100 };
    let server = await start(dbPath, rng);
    await setUp(server.baseUrl, world);
    const reads = readChecker(rng);
    const log: string[] = [];
    const stats = { sigterm: 0, killedInSave: 0, savedBeforeKill: 0, killedInWrite: 0, killedInFill: 0, killedIdle: 0 };
    const restart = async (budget?: string) => {
      server = await start(dbPath, rng, budget);
      await syncJudges(server.baseUrl, world);
    };

    /** A restart, a crash or a pause, chosen at random (or nothing); says what it did. */
    async function disturb(): Promise<string> {
      const event = rng.next();
      if (event < 0.15) {
        // A clean stop: the scores a write dropped are computed and saved, and the next start restores them.
        expect((await server.stop('SIGTERM')).code).toBe(0);
        stats.sigterm++;
        await restart();
        return 'SIGTERM';
      }
      if (event < 0.25) {
        // SIGKILL during the shutdown's save (or just before or after it).
        const delay = rng.int(0, 60);
        server.child.kill('SIGTERM');
        await sleep(delay);
        const exit = await server.stop('SIGKILL');
        if (exit.signal === 'SIGKILL') stats.killedInSave++;
        else stats.savedBeforeKill++;
        await restart();
        return `SIGTERM, SIGKILL after ${delay} ms (${exit.signal ?? exit.code})`;
      }
      if (event < 0.33) {
        // A clean stop, then a start killed while it restores and fills pairs in the background
        // (after the start's pass and FILL_QUIET_MS, or at once for a read that needs them).
        expect((await server.stop('SIGTERM')).code).toBe(0);
        await restart('16');
        const delay = rng.int(0, 1600);
        const c = rng.pick(COMPETITIONS);
        setTimeout(() => void fetch(`${server.baseUrl}/v1/competitions/${c}/coverage`).catch(() => {}), delay / 2);
        await sleep(delay);
        await server.stop('SIGKILL');
        stats.killedInFill++;
        await restart();
        return `SIGTERM, start, SIGKILL after ${delay} ms`;
      }
      if (event < 0.38) {
        await server.stop('SIGKILL');
        stats.killedIdle++;
        await restart();
        return 'SIGKILL';
      }
      if (event < 0.43) {
        // Idle past two sweeps: with a budget of 0 the competitions not read give their state back.
        await sleep(4200);
        return 'idle';
      }
      return '';
    }

    async function play(step: number): Promise<void> {
      const write = rng.chance(0.85) ? await randomWrite(world) : null;
      const what: string[] = [];
      const send = async () => {
        if (!write) return;
        const res = await write.go(server.baseUrl);
        expect(res.status, `step ${step} ${write.name}: ${res.text}`).toBeLessThan(300);
        what.push(`[${write.competition}] ${write.name}`);
      };
      if (write && rng.chance(0.08)) {
        // SIGKILL while the write is in flight: stored whole or not at all, and the recompute reads what is.
        const sent = write.go(server.baseUrl).catch(() => null);
        await sleep(rng.int(0, 40));
        await server.stop('SIGKILL');
        await sent;
        stats.killedInWrite++;
        what.push(`[${write.competition}] ${write.name}, SIGKILL in flight`);
        await restart();
      } else if (rng.chance(0.5)) {
        // The write, then a stop (whose save computes what it dropped), a crash or a pause.
        await send();
        what.push(await disturb());
      } else {
        // A start (or a crash), then the write, while restored scores stand and their pairs fill.
        what.push(await disturb());
        await send();
      }
      // The reads of some competitions (the others stay idle, so a small budget releases them), in a random order.
      const chosen = COMPETITIONS.filter(() => rng.chance(0.45));
      if (chosen.length === 0) chosen.push(rng.pick(COMPETITIONS));
      log.push(`${step}: ${what.filter(Boolean).join(' | ') || 'nothing'}; read ${chosen.join(',')}`);
      const paths = shuffle(
        chosen.flatMap((c) => readPaths(c, rng.pick(HOTKEYS))),
        rng.int(0, 1e9),
      );
      const served = await reads.serve(server.baseUrl, paths);
      const want = await recompute(dbPath, tmp.dir, step, paths);
      const problems = await reads.check(server.baseUrl, served, want);
      expect(problems, `step ${step}, seed ${seed}; the steps:\n${log.join('\n')}`).toEqual([]);
    }

    for (let step = 1; step <= STEPS; step++) {
      await play(step).catch((err: Error) => {
        // A hang (a read past READ_MS, a stop that needed its SIGKILL) says where it happened.
        err.message += `\n(step ${step}, seed ${seed}; the steps:\n${log.join('\n')})`;
        throw err;
      });
    }
    await server.stop('SIGTERM');
    console.log(JSON.stringify({ seed, steps: STEPS, ...stats, ...reads.counts }));
  }, 600_000);
