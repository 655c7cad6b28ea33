// Core benchmark: scoreCompetition, and scoreIncrementally after a write, on the reference
// competition (256 miners × 300 tasks, five runs each side), as the server would call them with
// pre-aggregated sums from storage.
// Run: node --import tsx bench/core.ts [iterations] [seed]
import { pathToFileURL } from 'node:url';
import { mulberry32 } from '../test/support/prng.js';
import { percentile } from './measure.js';
import { scoreCompetition, scoreIncrementally } from '../src/scoring/index.js';
import type {
  CompetitionInput,
  CompetitionScores,
  Complexity,
  MinerTaskSummary,
  ScoringTask,
} from '../src/scoring/index.js';

const RUNS = 5;
const GROUPS: Complexity[] = ['short', 'medium', 'long'];
const taskIdOf = (complexity: string, i: number): string => `${complexity}-${String(i).padStart(3, '0')}`;
const hotkeyOf = (m: number): string => `5Miner${String(m).padStart(4, '0')}`;

/**
 * The reference competition from `seed`: 256 miners × 300 tasks (100 per complexity), five
 * baseline runs per task and five runs per miner per task, weighted tokens 50k–2M per run with
 * the odd crashed run reporting none.
 */
export function referenceCompetition(seed = 1, miners = 256, tasksPerGroup = 100): CompetitionInput {
  const rand = mulberry32(seed);
  const tokens = (scale: number): number => Math.round((50_000 + rand() * 1_950_000) * scale);
  const tasks: ScoringTask[] = [];
  const difficulty: number[] = [];
  for (const [g, complexity] of GROUPS.entries()) {
    for (let i = 0; i < tasksPerGroup; i++) {
      const p = rand() * (1 - g * 0.2);
      let resolved = 0;
      let resolvedTokenSum = 0;
      let resolvedTokenCount = 0;
      for (let run = 0; run < RUNS; run++) {
        if (rand() >= p) continue;
        resolved += 1;
        resolvedTokenSum += tokens(1 + g);
        resolvedTokenCount += 1;
      }
      const id = taskIdOf(complexity, i);
      const baseline = { runs: RUNS, resolved, resolvedTokenSum, resolvedTokenCount };
      tasks.push({ id, stage: 'evaluation', complexity, plannedRuns: RUNS, baseline });
      difficulty.push(p);
    }
  }
  const hotkeys: string[] = [];
  const skill: number[] = [];
  const thrift: number[] = [];
  for (let m = 0; m < miners; m++) {
    hotkeys.push(hotkeyOf(m));
    skill.push(0.6 + rand() * 0.8);
    thrift.push(0.4 + rand() * 1.2);
  }
  // Task-major, like the storage layer's primary-key scan of (task, hotkey), and with fresh
  // id strings per row as a database driver hands them out.
  const minerTasks: MinerTaskSummary[] = [];
  tasks.forEach((task, t) => {
    for (let m = 0; m < miners; m++) {
      const p = Math.min(1, (difficulty[t] ?? 0) * (skill[m] ?? 1));
      let resolved = 0;
      let tokenSum = 0;
      let tokenCount = 0;
      for (let run = 0; run < RUNS; run++) {
        if (rand() < p) resolved += 1;
        if (rand() < 0.02) continue; // a crashed run: counted, but no valid tokens
        tokenSum += tokens(thrift[m] ?? 1);
        tokenCount += 1;
      }
      const taskId = taskIdOf(task.complexity ?? 'short', t % tasksPerGroup);
      minerTasks.push({ taskId, hotkey: hotkeyOf(m), runs: RUNS, resolved, tokenSum, tokenCount });
    }
  });
  const excluded = new Set([hotkeys[7], hotkeys[42]]);
  return {
    tasks,
    miners: hotkeys.map((hotkey) => ({ hotkey, excluded: excluded.has(hotkey) })),
    minerTasks,
    stages: ['screener_2', 'evaluation'],
    burnRatio: 0.1,
  };
}

/** Times `iterations` calls after a warm-up; CPU time (all threads, GC helpers included) tells a
 * slow core from a busy machine. */
function measure(label: string, iterations: number, run: () => CompetitionScores): Record<string, number | string> {
  for (let i = 0; i < 5; i++) run(); // warm-up: let the JIT settle
  const times: number[] = [];
  const cpu: number[] = [];
  let checksum = 0;
  for (let i = 0; i < iterations; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const result = run();
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
    checksum = result.weights.burnWeight + (result.miners[0]?.normalizedScore ?? 0);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const ms = (v: number): number => Math.round(v * 1000) / 1000;
  const line = {
    medianMs: ms(percentile(times, 0.5)),
    p95Ms: ms(percentile(times, 0.95)),
    cpuMedianMs: ms(percentile(cpu, 0.5)),
  };
  console.log(
    `${label}: ${iterations} calls, median ${line.medianMs} ms, p95 ${line.p95Ms} ms (CPU median ${line.cpuMedianMs} ms)`,
  );
  return { mode: label, ...line, checksum };
}

function main(): void {
  const iterations = Number(process.argv[2] ?? 30);
  const input = referenceCompetition(Number(process.argv[3] ?? 1));
  const entries = input.minerTasks.length;
  console.log(`scoreCompetition over ${entries} (task, miner) entries`);
  // What the server computes on a cold leaderboard or weights read: per-miner sums only.
  const leaderboard = measure('leaderboard and weights', iterations, () =>
    scoreCompetition(input, { keepTasks: false }),
  );
  // The same with every miner's per-task breakdown kept (about 77,000 task-score objects).
  const breakdowns = measure('with every breakdown kept', iterations, () => scoreCompetition(input));
  // A cold read after a write, scored incrementally from the state of the read before it (as
  // src/services/scores/compute.ts does): a write of one run (one entry replaced in place), and a
  // baseline run of one task.
  let state = scoreIncrementally(undefined, input).state;
  let round = 0;
  const afterRun = measure('incrementally, after a one-run write', iterations, () => {
    const k = (round++ * 7919) % entries;
    const minerTasks = [...input.minerTasks];
    minerTasks[k] = { ...minerTasks[k]!, runs: minerTasks[k]!.runs + (round % 2) };
    const next = scoreIncrementally(state, { ...input, minerTasks });
    state = next.state;
    return next.scores;
  });
  const afterBaseline = measure('incrementally, after a baseline run of one task', iterations, () => {
    const at = round++ % input.tasks.length;
    const tasks = input.tasks.map((t, i) =>
      i === at ? { ...t, baseline: { ...t.baseline, runs: t.baseline.runs + (round % 2) } } : t,
    );
    const next = scoreIncrementally(state, { ...input, tasks });
    state = next.state;
    return next.scores;
  });
  const results = [leaderboard, breakdowns, afterRun, afterBaseline];
  console.log(JSON.stringify({ bench: 'core', entries, iterations, results }));
}

// Run only when executed directly, so other benchmarks can import the generator.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
