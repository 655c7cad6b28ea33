// The history phase (issue 41, `--history N`): one server life takes N competitions of the bench's
// size one after another, as a server that has run a season of them has, on a database of its own.
// Each is set up, ingested over HTTP and read as a dashboard reads it (leaderboard, weights, weights
// on chain, a coverage page, a miner). The figures: the server's resident memory once the last is
// read against once the first was (each after the server has been left a few seconds, so the
// budget's sweeps have run: src/services/residency.ts), the first read of every older leaderboard
// in that same life, and after a restart on the same database the time to ready and the first
// read of every leaderboard.
import { readFileSync } from 'node:fs';
import { call, stats, timedRead, type Stats } from './measure.js';
import { ingest, setup } from './phases.js';
import type { Competition } from './generate.js';
import type { BenchServer } from './launch.js';
import type { Figure } from './report.js';
import { load1 } from './cli.js';

/** How long the server is left before its memory is read: past two sweeps (2 s apart) and a collection. */
const SETTLE_MS = 6000;

export interface HistoryResult {
  competitions: number;
  runsEach: number;
  /** Seconds to set up and ingest each competition. */
  ingestSeconds: number[];
  /** VmRSS once the first competition was read, and once every one was (MB), and their ratio. */
  rssOneMb: number;
  rssAllMb: number;
  rssRatio: number;
  /** VmRSS after each competition was read (MB). */
  rssAfterEachMb: number[];
  /** VmHWM of the first server (MB). */
  peakMb: number;
  /** First read of each older leaderboard in the same life, then after the restart. */
  oldFirstRead: Stats;
  /** Each of them, in the order read (ms): a spike's place tells the start of the reads from the rest. */
  oldFirstReadsMs: number[];
  restartedFirstReadsMs: number[];
  readyMs: number;
  restartedFirstRead: Stats;
  /** VmRSS of the restarted server after every leaderboard was read and it was left a while (MB). */
  restartedRssMb: number;
  /** The 1-minute load average as the phase started, as the older leaderboards were read, and at the restart: other work on the machine slows every time here. */
  loadAverage: { start: number; oldReads: number; restart: number };
}

const status = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

export async function historyPhase(o: {
  start: () => Promise<BenchServer>;
  admin: string;
  c: Competition;
  bodies: string[];
  counts: number[];
  total: number;
  n: number;
  clients: number;
  log: (msg: string) => void;
}): Promise<HistoryResult> {
  const ids = Array.from({ length: o.n }, (_, i) => `history-${i + 1}`);
  const read = async (url: string, id: string) => {
    const base = `/v1/competitions/${id}`;
    for (const path of ['/leaderboard', '/weights', '/weights/chain', '/coverage?limit=1000'])
      await call(url, `${base}${path}`);
    await call(url, `${base}/miners/${o.c.miners[0]!.hotkey}`);
  };
  let server = await o.start();
  const ingestSeconds: number[] = [];
  const rssAfterEachMb: number[] = [];
  let rssOneMb = NaN;
  const oldFirst: number[] = [];
  const loads = { start: load1(), oldReads: NaN, restart: NaN };
  try {
    for (const [i, id] of ids.entries()) {
      const t = performance.now();
      const key = await setup(server.baseUrl, o.admin, o.c, id);
      await ingest(server.baseUrl, key, o.bodies, o.counts, o.clients, id);
      const stored = JSON.parse((await call(server.baseUrl, `/v1/competitions/${id}`)).text) as {
        counts: { runs: number };
      };
      if (stored.counts.runs !== o.total) throw new Error(`${id}: stored ${stored.counts.runs} runs, sent ${o.total}`);
      ingestSeconds.push(Math.round((performance.now() - t) / 10) / 100);
      await read(server.baseUrl, id);
      if (i === 0) {
        await settle();
        rssOneMb = status(server.pid, 'VmRSS');
      }
      rssAfterEachMb.push(status(server.pid, 'VmRSS'));
      o.log(`history: ${id} ingested in ${ingestSeconds[i]} s and read; RSS ${rssAfterEachMb[i]} MB`);
    }
    await settle();
    const rssAllMb = status(server.pid, 'VmRSS');
    const peakMb = status(server.pid, 'VmHWM');
    // The older ones, least recently used first: each released by now unless the budget held it.
    loads.oldReads = load1();
    for (const id of ids.slice(0, -1))
      oldFirst.push(await timedRead(server.baseUrl, `/v1/competitions/${id}/leaderboard`));
    await server.stop();
    o.log(`history: RSS ${rssOneMb} MB with one, ${rssAllMb} MB with ${o.n}; restarting...`);

    loads.restart = load1();
    server = await o.start();
    const restartedFirst: number[] = [];
    for (const id of ids) restartedFirst.push(await timedRead(server.baseUrl, `/v1/competitions/${id}/leaderboard`));
    await settle();
    const restartedRssMb = status(server.pid, 'VmRSS');
    return {
      competitions: o.n,
      runsEach: o.total,
      ingestSeconds,
      rssOneMb,
      rssAllMb,
      rssRatio: Math.round((rssAllMb / rssOneMb) * 1000) / 1000,
      rssAfterEachMb,
      peakMb,
      oldFirstRead: stats(oldFirst),
      oldFirstReadsMs: oldFirst.map((ms) => Math.round(ms * 100) / 100),
      restartedFirstReadsMs: restartedFirst.map((ms) => Math.round(ms * 100) / 100),
      readyMs: Math.round(server.readyMs),
      restartedFirstRead: stats(restartedFirst),
      restartedRssMb,
      loadAverage: loads,
    };
  } finally {
    await server.stop();
  }
}

/** The phase's rows of the bench table (issue 41's targets). */
export function historyFigures(h: HistoryResult): Figure[] {
  const n = h.competitions;
  const max = (s: Stats) => s.maxMs;
  return [
    {
      figure: `history: server RSS with ${n} competitions taken`,
      value: h.rssAllMb,
      unit: 'MB',
      floor: { name: 'RSS with the first one', value: h.rssOneMb },
      ratio: h.rssRatio,
      target: '<= 1.2x',
      met: h.rssRatio <= 1.2,
    },
    {
      figure: `history: first read of each of the ${n - 1} older leaderboards, slowest (median ${h.oldFirstRead.medianMs})`,
      value: max(h.oldFirstRead),
      unit: 'ms',
      floor: null,
      ratio: null,
      target: '<= 20 ms',
      met: max(h.oldFirstRead) <= 20,
    },
    {
      figure: `history: ready after a restart with ${n}`,
      value: h.readyMs,
      unit: 'ms',
      floor: null,
      ratio: null,
      target: '<= 1 s (dist)',
      met: h.readyMs <= 1000,
    },
    {
      figure: `history: first leaderboard reads after the restart, slowest (median ${h.restartedFirstRead.medianMs})`,
      value: max(h.restartedFirstRead),
      unit: 'ms',
      floor: null,
      ratio: null,
      target: '<= 20 ms',
      met: max(h.restartedFirstRead) <= 20,
    },
  ];
}
