// The benchmark's command line and the machine it runs on.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SIZES, type SizeName } from './generate.js';
import type { ServerBuild } from './launch.js';
import type { Engine } from '../src/db/contract.js';

const ALIASES: Record<string, SizeName> = { '1x': 'reference', '4x': 'large' };

/** A size by its name or alias (1x, 4x); throws with the accepted names otherwise. */
export function sizeNamed(value: string): SizeName {
  const size = (ALIASES[value] ?? value) as SizeName;
  if (!(size in SIZES)) throw new Error(`--size must be small, reference (1x), 2x or large (4x), got ${value}`);
  return size;
}

export const USAGE = `Usage: npm run bench -- [options]   (docs/bench/README.md)
  --size small|reference|1x|2x|large|4x   the competition (default reference: 256 miners x 324 tasks)
  --seed N                the generator's seed (1)
  --server tsx|dist       the server from source (default) or compiled (npm run build first)
  --engine sqlite|postgres   the storage (default sqlite; postgres: PG_TEST_URL or 127.0.0.1:5432)
  --load auto|wrk|autocannon   the warm-read load generator (default wrk when on the PATH)
  --auth-batches N --auth-rounds R   signed vs bearer ingest: R pooled rounds of N batches (96, 4)
  --history N             after the other phases, one server life takes N competitions of the size
                          (issue 41 uses 12): its memory with N against one, the first read of every
                          older leaderboard, ready and first reads after a restart (default 0: off)
  --history-only          the history phase alone (with --history N, default 12)
  --help                  this text`;

export function parseCli() {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      history: { type: 'string', default: '0' },
      'history-only': { type: 'boolean', default: false },
      size: { type: 'string', default: 'reference' },
      seed: { type: 'string', default: '1' },
      'auth-batches': { type: 'string', default: '96' },
      'auth-rounds': { type: 'string', default: '4' },
      load: { type: 'string', default: 'auto' },
      server: { type: 'string', default: 'tsx' },
      engine: { type: 'string', default: 'sqlite' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const historyOnly = values['history-only'];
  const history = Number(historyOnly && values.history === '0' ? '12' : values.history);
  if (!Number.isInteger(history) || history < 0 || (historyOnly && history < 1))
    throw new Error(`--history must be a non-negative integer (positive with --history-only), got ${values.history}`);
  const size = sizeNamed(values.size);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const authBatches = Number(values['auth-batches']);
  if (!Number.isInteger(authBatches) || authBatches < 0)
    throw new Error(`--auth-batches must be a non-negative integer, got ${values['auth-batches']}`);
  const authRounds = Number(values['auth-rounds']);
  if (!Number.isInteger(authRounds) || authRounds < 1)
    throw new Error(`--auth-rounds must be a positive integer, got ${values['auth-rounds']}`);
  if (!['auto', 'wrk', 'autocannon'].includes(values.load))
    throw new Error(`--load must be auto, wrk or autocannon, got ${values.load}`);
  if (values.server !== 'tsx' && values.server !== 'dist')
    throw new Error(`--server must be tsx or dist, got ${values.server}`);
  const server: ServerBuild = values.server;
  if (values.engine !== 'sqlite' && values.engine !== 'postgres')
    throw new Error(`--engine must be sqlite or postgres, got ${values.engine}`);
  const engine: Engine = values.engine;
  return { size, seed, authBatches, authRounds, load: values.load, server, engine, history, historyOnly };
}

export const load1 = () => Math.round((os.loadavg()[0] ?? 0) * 100) / 100;

export function machine() {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 1e8) / 10,
    node: process.version,
    /** The 1-minute load average when the benchmark started: other work on the machine skews every figure. */
    loadAverageAtStart: load1(),
  };
}
