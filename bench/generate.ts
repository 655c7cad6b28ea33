// The benchmark's reference competition, generated from a seed: SWE-bench tasks, real SWE-Atlas
// QnA tasks, miners of varying skill and thrift, and every run a validator would send for them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mulberry32 } from '../test/support/prng.js';
import { encodeSs58 } from '../src/signatures/ss58.js';

export interface Size {
  miners: number;
  /** SWE-bench tasks per complexity group. */
  tasksPerGroup: number;
  /** QnA tasks per complexity group. */
  qnaPerGroup: number;
  /** Baseline runs per task and runs per miner per task. */
  runsPerSide: number;
  warmSeconds: number;
  coldRounds: number;
}

/** A size of the end-to-end benchmark (bench/run.ts): the competition and its phases. */
export interface BenchSize extends Size {
  /** Size of the QnA task file imported over HTTP while a reader loop times score reads. */
  importMb: number;
  /** Runs deleted through the API (and in the raw-delete floor). */
  deletes: number;
  /** Counted seconds of each warm load of the weights, the weights on chain and coverage, each side. */
  readSeconds: number;
}

export type SizeName = 'small' | 'reference' | '2x' | 'large';

const REFERENCE: BenchSize = {
  miners: 256,
  tasksPerGroup: 100,
  qnaPerGroup: 8,
  runsPerSide: 5,
  warmSeconds: 10,
  coldRounds: 20,
  importMb: 30,
  deletes: 1000,
  readSeconds: 6,
};

/** reference: 256 miners x 324 tasks x 5 runs each side (about 416,000 runs); 2x and large
 * (4x) multiply the miners, as a competition grows; small is the quick one CI runs. */
export const SIZES: Record<SizeName, BenchSize> = {
  small: {
    miners: 16,
    tasksPerGroup: 10,
    qnaPerGroup: 2,
    runsPerSide: 5,
    warmSeconds: 2,
    coldRounds: 20,
    importMb: 3,
    deletes: 100,
    readSeconds: 2,
  },
  reference: REFERENCE,
  '2x': { ...REFERENCE, miners: 512 },
  large: { ...REFERENCE, miners: 1024 },
};

/** How many times the reference competition's miners a size has (the x axis of the cost plot). */
export const scaleOf = (s: Size) => s.miners / REFERENCE.miners;

const GROUPS = ['short', 'medium', 'long'] as const;
type Group = (typeof GROUPS)[number];

export interface BenchTask {
  id: string;
  type: 'swebench_verified' | 'swe_atlas_qna';
  group: number;
  /** Chance that the reference agent resolves it. */
  p: number;
  /** QnA rubric: criterion ids and polarity. */
  criteria: { id: string; negative: boolean }[];
}

export interface BenchMiner {
  hotkey: string;
  /** Per-group skill multiplier on the task's resolve chance. */
  skill: number[];
  /** Token appetite: 1 is the reference agent. */
  thrift: number;
  crashRate: number;
  reportsCached: boolean;
}

export interface Competition {
  tasks: BenchTask[];
  miners: BenchMiner[];
  excluded: string[];
  /** The selected JSONL rows per group, ready for the import endpoint. */
  qnaImports: { complexity: Group; body: string }[];
  seed: number;
  size: Size;
}

const QNA_FILE = new URL('../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url);
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** A valid ss58 hotkey (generic prefix 42) made from `seed`: its public key is the seed's SHA-256. */
export const ss58Of = (seed: string) => encodeSs58(createHash('sha256').update(seed).digest());

export function buildCompetition(size: Size, seed: number): Competition {
  const rand = mulberry32(seed);
  const tasks: BenchTask[] = [];
  for (let g = 0; g < 3; g++) {
    for (let i = 0; i < size.tasksPerGroup; i++) {
      // Longer tasks are harder: more of them end with x <= 1 (hard tasks).
      const p = 0.05 + 0.9 * rand() ** (1 + 0.4 * g);
      const id = `django__django-${GROUPS[g]}-${String(10000 + i * 7 + g)}`;
      tasks.push({ id, type: 'swebench_verified', group: g, p, criteria: [] });
    }
  }
  // Real SWE-Atlas rows, a seeded choice of them, qnaPerGroup per complexity group.
  const lines = readFileSync(QNA_FILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const order = lines.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const qnaImports: Competition['qnaImports'] = [];
  for (let g = 0; g < 3; g++) {
    const rows = order.slice(g * size.qnaPerGroup, (g + 1) * size.qnaPerGroup).map((i) => lines[i]!);
    qnaImports.push({ complexity: GROUPS[g]!, body: rows.join('\n') + '\n' });
    for (const line of rows) {
      const row = JSON.parse(line) as { task_id: string; rubric: string };
      const rubric = JSON.parse(row.rubric) as { id: string; annotations: { type: string } }[];
      const criteria = rubric.map((c) => ({ id: c.id, negative: c.annotations.type.startsWith('negative') }));
      tasks.push({ id: row.task_id, type: 'swe_atlas_qna', group: g, p: 0.1 + 0.8 * rand(), criteria });
    }
  }
  const miners: BenchMiner[] = [];
  for (let m = 0; m < size.miners; m++) {
    // 47 draws, as many as when hotkeys were bare base58 strings, so the rest of the competition
    // is the same for a seed; the string is hashed into a public key whose ss58 address (checksum
    // and all) the metagraph accepts (src/snapshots/metagraph.ts).
    let drawn = '';
    for (let k = 0; k < 47; k++) drawn += BASE58[Math.floor(rand() * BASE58.length)];
    const hotkey = ss58Of(drawn);
    const base = 0.35 + 1.2 * rand();
    // Specialists: a miner may be strong on short tasks and weak on long ones.
    const skill = GROUPS.map(() => base * (0.75 + 0.5 * rand()));
    miners.push({
      hotkey,
      skill,
      thrift: 0.5 + 1.3 * rand(),
      crashRate: 0.005 + 0.03 * rand(),
      reportsCached: rand() > 0.1,
    });
  }
  const excluded = [7, 42].filter((i) => i < miners.length).map((i) => miners[i]!.hotkey);
  return { tasks, miners, excluded, qnaImports, seed, size };
}

/** The SWE-bench task definitions for the bulk task PUT. */
export function sweTaskInputs(c: Competition) {
  return c.tasks
    .filter((t) => t.type === 'swebench_verified')
    .map((t) => ({
      id: t.id,
      type: t.type,
      stage: 'evaluation',
      complexity: GROUPS[t.group],
      plannedRuns: c.size.runsPerSide,
    }));
}

export interface Run {
  runId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey?: string;
  attemptNo: number;
  resolved?: boolean;
  tokens: { input: number; cachedInput?: number; output: number } | null;
  timeTakenSeconds: number;
  agentSteps: number;
  rubricVotes?: { criterionId: string; votes: { verdict: 'YES' | 'NO'; reason: string }[] }[];
}

const REASONS = {
  met: ['stated explicitly', 'matches the reference', 'covered with evidence', 'correct value given'],
  unmet: ['not addressed', 'contradicts the reference', 'vague, no evidence', 'wrong value given'],
};

/** Judge votes that grade to `resolved`: all criteria met, or at least one not (SPEC 7). */
function votesFor(task: BenchTask, resolved: boolean, rand: () => number): NonNullable<Run['rubricVotes']> {
  const failing = new Set<number>();
  if (!resolved) {
    task.criteria.forEach((_, i) => rand() < 0.3 && failing.add(i));
    if (failing.size === 0) failing.add(Math.floor(rand() * task.criteria.length));
  }
  return task.criteria.map((c, i) => {
    const met = !failing.has(i);
    const majority: 'YES' | 'NO' = met !== c.negative ? 'YES' : 'NO';
    const minority: 'YES' | 'NO' = majority === 'YES' ? 'NO' : 'YES';
    const r = rand();
    const agree = r < 0.7 ? 5 : r < 0.9 ? 4 : 3;
    const votes = [];
    for (let v = 0; v < 5; v++) {
      const verdict = v < agree ? majority : minority;
      const pool = (verdict === 'YES') !== c.negative ? REASONS.met : REASONS.unmet;
      votes.push({ verdict, reason: pool[Math.floor(rand() * pool.length)]! });
    }
    return { criterionId: c.id, votes };
  });
}

const INPUT = [
  [20_000, 400_000],
  [100_000, 1_000_000],
  [300_000, 2_000_000],
] as const;

function makeRun(task: BenchTask, who: BenchMiner | null, attemptNo: number, rand: () => number): Run {
  const g = task.group;
  const p = who ? clamp(task.p * who.skill[g]! + 0.1 * (who.skill[g]! - 1), 0.01, 0.98) : task.p;
  const thrift = who?.thrift ?? 1;
  const crashed = rand() < (who?.crashRate ?? 0.01);
  const resolved = !crashed && rand() < p;
  let tokens: Run['tokens'];
  if (crashed) {
    tokens = rand() < 0.5 ? null : { input: 0, cachedInput: 0, output: 0 };
  } else {
    const [lo, hi] = INPUT[g]!;
    const input = Math.round(clamp((lo + rand() * (hi - lo)) * thrift, 20_000, 2_000_000));
    const output = Math.round(clamp((1_000 + rand() * 30_000) * (1 + g) * thrift, 1_000, 100_000));
    tokens = { input, output };
    if (who?.reportsCached !== false) tokens.cachedInput = Math.round(clamp(input * (0.5 + rand() * 3), 0, 6_000_000));
  }
  const id = who ? `m:${who.hotkey}:${task.id}:${attemptNo}` : `b:${task.id}:${attemptNo}`;
  const run: Run = {
    runId: id,
    taskId: task.id,
    kind: who ? 'miner' : 'baseline',
    attemptNo,
    tokens,
    timeTakenSeconds: Math.round((60 + rand() * 900 * (1 + g)) * 10) / 10,
    agentSteps: Math.floor(10 + rand() * 100 * (1 + g)),
  };
  if (who) run.minerHotkey = who.hotkey;
  // A crashed QnA run has no answer to judge: the validator reports it unresolved.
  if (task.type === 'swe_atlas_qna' && !crashed) run.rubricVotes = votesFor(task, resolved, rand);
  else run.resolved = resolved;
  return run;
}

/**
 * Every run in the order a validator would send them: the baseline runs first, then miner by
 * miner over every task.
 */
export function* generateRuns(c: Competition): Generator<Run> {
  const rand = mulberry32(c.seed ^ 0x5eed);
  for (const task of c.tasks) for (let a = 0; a < c.size.runsPerSide; a++) yield makeRun(task, null, a, rand);
  for (const miner of c.miners) {
    for (const task of c.tasks) for (let a = 0; a < c.size.runsPerSide; a++) yield makeRun(task, miner, a, rand);
  }
}

/** One more run of `miner` on `task` (null: a baseline run), for the cold-read rounds. */
export function extraRun(c: Competition, task: BenchTask, miner: BenchMiner | null, attemptNo: number): Run {
  return makeRun(task, miner, attemptNo, mulberry32(c.seed + attemptNo));
}

/** Request bodies of `batchSize` runs each, serialized up front so the clients only send. */
export function runBatches(c: Competition, batchSize: number): { bodies: string[]; counts: number[]; total: number } {
  const bodies: string[] = [];
  const counts: number[] = [];
  let batch: Run[] = [];
  let total = 0;
  const flush = () => {
    bodies.push(JSON.stringify({ runs: batch }));
    counts.push(batch.length);
    batch = [];
  };
  for (const run of generateRuns(c)) {
    batch.push(run);
    total += 1;
    if (batch.length === batchSize) flush();
  }
  if (batch.length > 0) flush();
  return { bodies, counts, total };
}
