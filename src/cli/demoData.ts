// Simulated tasks, miners and runs for `npm run demo`. Every random draw comes from a seeded
// PRNG keyed by (task, runner), never Math.random, so each demo database is identical.
import type { RunInput } from '../schemas/runs.js';
import type { Complexity } from '../scoring/types.js';

/** mulberry32 seeded with an FNV-1a hash of the parts: one independent stream per key. */
export function rng(...parts: (string | number)[]): () => number {
  let a = 2166136261;
  for (const ch of parts.join('|')) a = Math.imul(a ^ ch.charCodeAt(0), 16777619);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export interface DemoTask {
  id: string;
  group: Complexity;
  /** Chance that a baseline run resolves the task. */
  pass: number;
  /** Mean weighted-token scale of a baseline run. */
  tokens: number;
  /** QnA tasks: criteria the judge votes on; null for SWE-bench-style tasks. */
  rubric: { id: string; type: 'positive' | 'negative' }[] | null;
}

export interface Runner {
  hotkey: string | null; // null: the baseline agent
  /** Added to the baseline's resolve chance, per complexity group. */
  skill: Record<Complexity, number>;
  /** Token use relative to the baseline. */
  tokens: number;
}

export const BASELINE: Runner = { hotkey: null, skill: { short: 0, medium: 0, long: 0 }, tokens: 1 };

const miner = (hotkey: string, short: number, medium: number, long: number, tokens: number): Runner => ({
  hotkey,
  skill: { short, medium, long },
  tokens,
});

/** Different trade-offs so the leaderboard and the group layers have something to show. */
export const MINERS: Runner[] = [
  miner('sharp-lean', 0.04, 0.12, 0.02, 0.65),
  miner('steady', 0.02, 0.02, 0, 0.95),
  miner('big-spender', 0.1, 0.14, 0.18, 1.9),
  miner('frugal-fox', -0.04, -0.06, -0.08, 0.45),
  miner('long-hauler', -0.05, 0.02, 0.24, 0.9),
  miner('sprinter', 0.14, 0, -0.15, 0.6),
  miner('baseline-clone', 0, 0, 0, 1),
  miner('struggler', -0.2, -0.25, -0.25, 1.3),
];

const REPOS = [
  'django/django',
  'sympy/sympy',
  'astropy/astropy',
  'scikit-learn/scikit-learn',
  'matplotlib/matplotlib',
  'pytest-dev/pytest',
  'sphinx-doc/sphinx',
  'psf/requests',
  'pydata/xarray',
  'pylint-dev/pylint',
];
const PASS: Record<Complexity, number> = { short: 0.8, medium: 0.55, long: 0.3 };
const TOKENS: Record<Complexity, number> = { short: 150_000, medium: 400_000, long: 900_000 };

/** SWE-bench-style tasks, `perGroup` in each complexity group, ids like django__django-11099. */
export function sweTasks(perGroup = 20): DemoTask[] {
  const r = rng('swe-tasks');
  const ids = new Set<string>();
  const tasks: DemoTask[] = [];
  for (const group of ['short', 'medium', 'long'] as const) {
    for (let made = 0; made < perGroup;) {
      const [owner, name] = REPOS[Math.floor(r() * REPOS.length)]!.split('/');
      const id = `${owner}__${name}-${1000 + Math.floor(r() * 24000)}`;
      if (ids.has(id)) continue;
      ids.add(id);
      made++;
      tasks.push({
        id,
        group,
        pass: clamp(PASS[group] + (r() - 0.5) * 0.4, 0.05, 0.95),
        tokens: TOKENS[group] * (0.7 + 0.6 * r()),
        rubric: null,
      });
    }
  }
  return tasks;
}

/** A QnA task for the simulation: harder with more criteria, as its complexity group says. */
export function qnaTask(
  id: string,
  group: Complexity,
  rubric: { id: string; type: 'positive' | 'negative' }[],
): DemoTask {
  const r = rng('qna-task', id);
  return {
    id,
    group,
    pass: clamp(PASS[group] - 0.05 + (r() - 0.5) * 0.4, 0.05, 0.9),
    tokens: 1.5 * TOKENS[group] * (0.7 + 0.6 * r()),
    rubric,
  };
}

/**
 * Five judge votes on one criterion. Most criteria are stable (a split now and then); a quarter
 * are shaky and split often, as the AA edition found. The majority follows whether the answer
 * really met the criterion, so negative criteria, usually met, are mostly voted NO.
 */
function votesFor(c: { id: string; type: 'positive' | 'negative' }, met: boolean, r: () => number) {
  const majority = (c.type === 'positive') === met ? 'YES' : 'NO';
  const minorityVerdict = majority === 'YES' ? 'NO' : 'YES';
  const shaky = rng('criterion', c.id)() < 0.25;
  const x = r();
  const minority = x < (shaky ? 0.15 : 0.02) ? 2 : x < (shaky ? 0.4 : 0.08) ? 1 : 0;
  const votes: { verdict: 'YES' | 'NO'; reason?: string }[] = Array.from({ length: 5 }, () => ({ verdict: majority }));
  // Partial Fisher-Yates: the dissenting votes land on distinct, random positions.
  const slots = [0, 1, 2, 3, 4];
  for (let k = 0; k < minority; k++) {
    const i = k + Math.floor(r() * (5 - k));
    [slots[k], slots[i]] = [slots[i]!, slots[k]!];
    votes[slots[k]!] = { verdict: minorityVerdict, reason: 'Reads the answer differently from the other votes.' };
  }
  return { criterionId: c.id, votes };
}

/** `count` runs of one runner on one task. QnA runs carry votes and no `resolved`: the server grades them. */
export function simulateRuns(task: DemoTask, runner: Runner, count = 5): RunInput[] {
  const name = runner.hotkey ?? 'baseline';
  const r = rng(task.id, name);
  const pass = clamp(task.pass + runner.skill[task.group], 0.02, 0.98);
  return Array.from({ length: count }, (_, attemptNo): RunInput => {
    const scale = task.tokens * runner.tokens * (0.75 + 0.5 * r());
    const who = runner.hotkey ? { kind: 'miner' as const, minerHotkey: runner.hotkey } : { kind: 'baseline' as const };
    const run: RunInput = {
      runId: `${name}.${task.id}.${attemptNo}`,
      taskId: task.id,
      ...who,
      attemptNo,
      tokens: {
        input: Math.round(scale * 0.3),
        cachedInput: Math.round(scale * 0.7),
        output: Math.round(scale * 0.04),
      },
      timeTakenSeconds: Math.round(scale / 2500),
      agentSteps: Math.round(scale / 12_000),
    };
    if (!task.rubric) return { ...run, resolved: r() < pass };
    // Per-criterion chance such that meeting all of them has chance `pass`.
    const perCriterion = pass ** (1 / task.rubric.length);
    return { ...run, rubricVotes: task.rubric.map((c) => votesFor(c, r() < perCriterion, r)) };
  });
}
