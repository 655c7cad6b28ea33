// The benchmark's HTTP phases on the real server: the competition set up, the runs ingested by
// concurrent clients, cold reads after a write, and a sanity check of the scores' shape.
import { extraRun, ss58Of, sweTaskInputs, type Competition } from './generate.js';
import { call, callJson, cpuNs, stats, timedRead, type Stats } from './measure.js';

export const COMPETITION = 'bench';
export const WEIGHTS = { input: 1, cachedInput: 0.1, output: 3 };

/** The metagraph the bench records: the subnet owner at uid 0 (burnUid, a validator), each miner at 1 on. */
export function benchMetagraph(c: Competition) {
  return {
    netuid: 1,
    block: 1_000_000,
    neurons: [
      { uid: 0, hotkey: ss58Of(`bench-owner-${c.seed}`), validator: true },
      ...c.miners.map((m, i) => ({ uid: i + 1, hotkey: m.hotkey })),
    ],
    burnUid: 0,
  };
}

/** The competition, its tasks (QnA through the one-request import), exclusions, its metagraph;
 * returns a validator key. */
export async function setup(url: string, admin: string, c: Competition, id = COMPETITION): Promise<string> {
  const COMPETITION = id;
  const token = { token: admin };
  await call(url, `/v1/competitions/${COMPETITION}`, {
    ...token,
    method: 'PUT',
    body: JSON.stringify({ name: 'Benchmark', burnRatio: 0.1, tokenWeights: WEIGHTS }),
  });
  await call(url, `/v1/competitions/${COMPETITION}/tasks`, {
    ...token,
    method: 'PUT',
    body: JSON.stringify({ tasks: sweTaskInputs(c) }),
  });
  for (const imp of c.qnaImports) {
    const res = await callJson<{ imported: number }>(
      url,
      `/v1/competitions/${COMPETITION}/tasks/import?complexity=${imp.complexity}`,
      { ...token, body: imp.body, contentType: 'application/x-ndjson' },
    );
    if (res.imported !== c.size.qnaPerGroup)
      throw new Error(`QnA import of ${imp.complexity}: imported ${res.imported}, expected ${c.size.qnaPerGroup}`);
  }
  for (const hotkey of c.excluded) {
    await call(url, `/v1/competitions/${COMPETITION}/miners/${hotkey}`, {
      ...token,
      method: 'PUT',
      body: JSON.stringify({ excluded: true, reason: 'benchmark: copied weights' }),
    });
  }
  await call(url, `/v1/competitions/${COMPETITION}/metagraph`, {
    ...token,
    method: 'PUT',
    body: JSON.stringify(benchMetagraph(c)),
  });
  const v = await callJson<{ apiKey: string }>(url, '/v1/validators', {
    ...token,
    body: JSON.stringify({ name: 'bench-validator' }),
  });
  return v.apiKey;
}

/**
 * Called after a floor that ran on this thread: while a synchronous floor holds the event loop
 * (a minute at 4x), the server may close the idle keep-alive connections of fetch's pool (its
 * keep-alive timeout is 72 s), and fetch learns of a close only when the loop polls its sockets. A
 * request sent before that goes out on a closed connection and fails (UND_ERR_SOCKET). A timer lets
 * one poll run first.
 */
export const socketsSettled = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

/** Sends every batch, `clients` requests at a time; seconds taken. */
export async function ingest(
  url: string,
  key: string,
  bodies: string[],
  counts: number[],
  clients: number,
  id = COMPETITION,
) {
  const COMPETITION = id;
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const i = next++;
      try {
        const r = await callJson<{ accepted: number; duplicates: number }>(
          url,
          `/v1/competitions/${COMPETITION}/runs`,
          { token: key, body: bodies[i]! },
        );
        if (r.accepted !== counts[i])
          throw new Error(`batch ${i}: accepted ${r.accepted} of ${counts[i]} (duplicates ${r.duplicates})`);
      } catch (err) {
        next = bodies.length; // the other clients stop too
        throw err;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  return (performance.now() - start) / 1000;
}

/**
 * Write one new miner run (with `baseline`, one baseline run: every miner's pair of its task
 * changes), then time one read; `coldRounds` times.
 */
export async function coldReads(
  url: string,
  key: string,
  c: Competition,
  path: string,
  salt: number,
  baseline = false,
  pid?: number,
): Promise<ColdStats> {
  const times: number[] = [];
  const cpu: number[] = [];
  const miner = baseline ? null : c.miners[0]!;
  for (let i = 0; i < c.size.coldRounds; i++) {
    const task = c.tasks[(i * 37 + salt) % c.tasks.length]!;
    const run = extraRun(c, task, miner, salt + i);
    await call(url, `/v1/competitions/${COMPETITION}/runs`, { token: key, body: JSON.stringify({ runs: [run] }) });
    const before = pid === undefined ? 0 : cpuNs(pid);
    times.push(await timedRead(url, path));
    if (pid !== undefined) cpu.push((cpuNs(pid) - before) / 1e6);
  }
  return { ...stats(times), ...(pid === undefined ? {} : { serverCpuMedianMs: stats(cpu).medianMs }) };
}

/**
 * Cold reads' wall times as this process sees them (through fetch), and the server's CPU over each
 * read (every thread of its process): what the server spent, apart from the client's own costs.
 */
export interface ColdStats extends Stats {
  serverCpuMedianMs?: number;
}

/** Sanity of the data: zone mix over the breakdowns of up to 256 miners spread over the list,
 * ranked miners, weight winners. */
export async function shape(url: string, c: Competition) {
  const zones: Record<string, number> = {};
  const step = Math.ceil(c.miners.length / 256);
  for (const m of c.miners.filter((_, i) => i % step === 0)) {
    const d = await callJson<{ tasks: { zone: string }[] }>(url, `/v1/competitions/${COMPETITION}/miners/${m.hotkey}`);
    for (const t of d.tasks) zones[t.zone] = (zones[t.zone] ?? 0) + 1;
  }
  const lb = await callJson<{ miners: { rank: number | null }[] }>(url, `/v1/competitions/${COMPETITION}/leaderboard`);
  const w = await callJson<{ finalWeights: Record<string, number>; burnWeight: number }>(
    url,
    `/v1/competitions/${COMPETITION}/weights`,
  );
  const winners = Object.values(w.finalWeights).filter((x) => x > 0).length;
  // Every miner has a uid: nothing may be burned for want of one, and each winner has a uid.
  const onChain = await callJson<{ uids: number[]; unregistered: unknown[]; burnUid: number }>(
    url,
    `/v1/competitions/${COMPETITION}/weights/chain`,
  );
  if (onChain.unregistered.length > 0)
    throw new Error(`weights on chain: ${onChain.unregistered.length} miners unregistered, every one has a uid`);
  const chainWinners = onChain.uids.filter((u) => u !== onChain.burnUid).length;
  if (chainWinners < winners)
    throw new Error(`weights on chain: ${chainWinners} uids besides the burn's, ${winners} miners with weight`);
  return {
    zones,
    ranked: lb.miners.filter((m) => m.rank !== null).length,
    weightWinners: winners,
    chainUids: onChain.uids.length,
    burnWeight: w.burnWeight,
  };
}
