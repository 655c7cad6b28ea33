// The world of test/reliability/restartsAgree.test.ts: three competitions of SWE-bench and QnA
// tasks, two validators, and a seeded generator of the writes an operator and validators make
// (run batches, run deletions, miner and validator exclusions, task re-tags, settings, judge
// configurations, metagraphs), each sent to a real server process. What the writes leave is not
// modelled here: the test compares the server's reads with a full recompute over a copy of its
// database, so a write's outcome (a batch in flight at a SIGKILL) need not be known.
import { serverDatabase } from '../support/engine.js';
import type { Rng } from '../support/prng.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';

export const COMPETITIONS = ['ra', 'rb', 'rc'] as const;
export const HOTKEYS = [1, 2, 3, 4, 5].map((n) => encodeSs58(new Uint8Array(32).fill(n + 40)));
/** The subnet owner's hotkey: uid 0, where unregistered miners' weight is burned. */
const OWNER = encodeSs58(new Uint8Array(32).fill(99));
const CRITERIA = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
const STAGE_SETS = [['evaluation'], ['screener_2', 'evaluation'], ['screener_1', 'screener_2', 'evaluation']];
const COMPLEXITIES = ['short', 'medium', 'long', null];
const TOKEN_WEIGHTS = [
  { input: 1, cachedInput: 0.1, output: 4 },
  { input: 1, cachedInput: 0.25, output: 5 },
];

const qna = {
  prompt: 'Where is the retry budget reset?',
  referenceAnswer: 'In resetBudget(), called by the scheduler.',
  repositoryUrl: 'acme/widgets',
  repositoryBaseCommit: 'f'.repeat(40),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric: [
    { id: CRITERIA[0], title: 'Names resetBudget', type: 'positive', importance: 'must have' },
    {
      id: CRITERIA[1],
      title: 'Blames the client',
      type: 'negative',
      importance: 'must have',
      change: 'precision',
      originalTitle: 'Says the client is at fault',
    },
    {
      id: CRITERIA[2],
      title: 'Cites the test',
      type: 'positive hli verifier',
      importance: 'must have',
      change: 'stability',
    },
  ],
};

const TASKS = [
  { id: 'sw-1', type: 'swebench_verified', complexity: 'short' },
  { id: 'sw-2', type: 'swebench_verified', complexity: 'medium', plannedRuns: 3 },
  { id: 'sw-3', type: 'swebench_verified', complexity: 'long', stage: 'screener_2' },
  { id: 'sw-4', type: 'swebench_verified', stage: 'screener_1' },
  { id: 'q-1', type: 'swe_atlas_qna', complexity: 'long', qna },
  { id: 'q-2', type: 'swe_atlas_qna', complexity: 'short', stage: 'screener_2', qna },
];

const judge = (k: number) => ({
  model: `judge-${k}`,
  reasoningEffort: 'high',
  votes: 3,
  temperature: 0,
  promptTemplate: `Judge ${k}. Answer ({answer_date}): {answer}`,
  outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } } },
});

/** The score reads of a competition compared at every step (public reads, no token). */
export function readPaths(c: string, hotkey: string): string[] {
  const base = `/v1/competitions/${c}`;
  return [
    `${base}/leaderboard`,
    `${base}/leaderboard?stages=screener_1,screener_2,evaluation`,
    `${base}/leaderboard?limit=2&offset=1`,
    `${base}/weights`,
    `${base}/weights?stages=screener_2`,
    `${base}/weights/chain`,
    `${base}/miners/${hotkey}`,
    `${base}/tasks/q-1`,
    `${base}/coverage`,
    `${base}/criteria/report`,
    `${base}/validators`,
  ];
}

export interface Sent {
  status: number;
  text: string;
}

/** One JSON request with the admin token or a validator key. */
export async function send(base: string, method: string, path: string, token: string, body?: unknown): Promise<Sent> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text() };
}

/** What the generator knows between steps: keys and ids, and each competition's judge digests. */
export interface World {
  rng: Rng;
  admin: string;
  dbPath: string;
  validators: { id: string; key: string }[];
  /** Per competition the digests acknowledged, the one in force last (re-read after each start). */
  judges: Map<string, string[]>;
  nextRun: number;
  block: number;
}

/** A write, chosen before it is sent (so a SIGKILL can land while it is in flight). */
export interface Write {
  name: string;
  competition: string;
  go(base: string): Promise<Sent>;
}

/** Creates the competitions, their tasks and two validators through the server. */
export async function setUp(base: string, world: World): Promise<void> {
  const ok = async (r: Promise<Sent>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`set-up: ${res.status} ${res.text}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  for (const c of COMPETITIONS) {
    await ok(send(base, 'PUT', `/v1/competitions/${c}`, world.admin, { name: c, judgeVotes: 3, burnRatio: 0.1 }));
    await ok(send(base, 'PUT', `/v1/competitions/${c}/tasks`, world.admin, { tasks: TASKS }));
    world.judges.set(c, []);
  }
  for (const name of ['v-one', 'v-two']) {
    const v = await ok(send(base, 'POST', '/v1/validators', world.admin, { name }));
    world.validators.push({ id: v.id as string, key: v.apiKey as string });
  }
}

/** Re-reads the judge in force of each competition (a PUT in flight at a SIGKILL may or may not have landed). */
export async function syncJudges(base: string, world: World): Promise<void> {
  for (const c of COMPETITIONS) {
    const res = await send(base, 'GET', `/v1/competitions/${c}/judge`, world.admin);
    const held = world.judges.get(c)!;
    if (res.status !== 200) continue;
    const digest = (JSON.parse(res.text) as { digest: string }).digest;
    world.judges.set(c, [...held.filter((d) => d !== digest), digest]);
  }
}

function run(world: World, c: string): Record<string, unknown> {
  const { rng } = world;
  const task = rng.pick(TASKS);
  const miner = rng.chance(0.25) ? { kind: 'baseline' } : { kind: 'miner', minerHotkey: rng.pick(HOTKEYS) };
  const r: Record<string, unknown> = { runId: `${c}-${world.nextRun++}`, taskId: task.id, ...miner };
  if (rng.chance(0.9))
    r.tokens = { input: rng.int(100, 40_000), output: rng.int(10, 4000), cachedInput: rng.int(0, 9000) };
  if (task.type === 'swe_atlas_qna') {
    r.rubricVotes = CRITERIA.map((criterionId) => ({
      criterionId,
      votes: [0, 1, 2].map(() => ({ verdict: rng.chance(0.6) ? 'YES' : 'NO' })),
    }));
    const held = world.judges.get(c)!;
    if (held.length > 0) {
      // Mostly the judge in force; now and then an earlier one (a stale run, listed but scored nowhere).
      r.judge = { digest: rng.chance(0.85) ? held[held.length - 1]! : rng.pick(held) };
      r.answerDate = '2026-11-30';
    }
  } else r.resolved = rng.chance(0.5);
  return r;
}

/** The run ids a competition holds, read from the server's database (read-only). */
async function storedRunIds(dbPath: string, c: string): Promise<string[]> {
  const rows = await serverDatabase(dbPath).query(`SELECT run_id FROM runs WHERE competition_id = '${c}' ORDER BY seq`);
  return rows.map((r) => r.run_id as string);
}

/** A random write to a random competition. */
export async function randomWrite(world: World): Promise<Write> {
  const { rng, admin } = world;
  const c = rng.pick(COMPETITIONS);
  const path = `/v1/competitions/${c}`;
  const put = (name: string, p: string, body: unknown, method = 'PUT'): Write => ({
    name,
    competition: c,
    go: (base) => send(base, method, p, admin, body),
  });
  const roll = rng.next();
  if (roll < 0.4) {
    const runs = Array.from({ length: rng.int(1, rng.chance(0.2) ? 120 : 25) }, () => run(world, c));
    const key = rng.pick(world.validators).key;
    return {
      name: `runs x${runs.length}`,
      competition: c,
      go: (base) => send(base, 'POST', `${path}/runs`, key, { runs }),
    };
  }
  if (roll < 0.5) {
    const ids = await storedRunIds(world.dbPath, c);
    if (ids.length === 0) return randomWrite(world);
    const id = rng.pick(ids);
    return put(`delete ${id}`, `${path}/runs/${id}`, undefined, 'DELETE');
  }
  if (roll < 0.6) {
    const hotkey = rng.pick(HOTKEYS);
    const excluded = rng.chance(0.5);
    return put(`miner ${hotkey.slice(0, 6)} excluded=${excluded}`, `${path}/miners/${hotkey}`, { excluded });
  }
  if (roll < 0.7) {
    const tasks = TASKS.filter(() => rng.chance(0.4)).map(({ id, type }) => ({
      id,
      type,
      complexity: rng.pick(COMPLEXITIES),
      ...(rng.chance(0.3) ? { stage: rng.pick(STAGE_SETS[2]!) } : {}),
    }));
    if (tasks.length === 0) return randomWrite(world);
    return put(`re-tag ${tasks.map((t) => t.id).join(',')}`, `${path}/tasks`, { tasks });
  }
  if (roll < 0.8) {
    const body = {
      name: c,
      judgeVotes: 3,
      burnRatio: rng.pick([0, 0.1, 0.5]),
      tokenWeights: rng.pick(TOKEN_WEIGHTS),
      finalStages: rng.pick(STAGE_SETS),
    };
    return put(`settings ${JSON.stringify(body)}`, path, body);
  }
  if (roll < 0.87) {
    const k = rng.int(1, 3);
    return {
      name: `judge ${k}`,
      competition: c,
      async go(base) {
        const res = await send(base, 'PUT', `${path}/judge`, admin, judge(k));
        if (res.status < 300) {
          const digest = (JSON.parse(res.text) as { digest: string }).digest;
          world.judges.set(c, [...world.judges.get(c)!.filter((d) => d !== digest), digest]);
        }
        return res;
      },
    };
  }
  if (roll < 0.94) {
    const registered = HOTKEYS.filter(() => rng.chance(0.7)).map((hotkey, uid) => ({ uid: uid + 1, hotkey }));
    const neurons = [{ uid: 0, hotkey: OWNER }, ...registered];
    const body = { netuid: 7, block: ++world.block, neurons, burnUid: 0, versionKey: 3 };
    return put(`metagraph ${neurons.length} neurons`, `${path}/metagraph`, body);
  }
  const v = rng.pick(world.validators);
  const excluded = rng.chance(0.5);
  return put(`validator ${v.id} excluded=${excluded}`, `${path}/validators/${v.id}`, { excluded });
}
