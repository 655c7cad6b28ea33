import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreCompetition } from '../../src/scoring/scoreCompetition.js';
import { scoreIncrementally, type EntryChanges, type ScoringState } from '../../src/scoring/scoreIncrementally.js';
import { STAGES } from '../../src/scoring/types.js';
import type {
  CompetitionInput,
  CompetitionScores,
  Complexity,
  MinerTaskSummary,
  ScoringMiner,
  ScoringTask,
  Stage,
} from '../../src/scoring/types.js';

// A competition as the server's scoring input sees it between reads, changed by one operation
// at a time the way writes change it: the (task, miner) list keeps its order (an entry changed in
// place, a new one last, a deleted one taken out), every change a new entry object; and, now and
// then, a list read afresh or in another order. After each operation the incremental scorer,
// following every earlier state, must give exactly what the full scorer gives.

const TASKS = 6;
const HOTKEYS = ['a', 'b', 'c', 'd', 'e'];
const COMPLEXITY = fc.constantFrom<Complexity | null>('short', 'medium', 'long', null);
const STAGE = fc.constantFrom<Stage>('screener_1', 'screener_2', 'evaluation', 'evaluation');
const runs = fc.integer({ min: 0, max: 5 });
interface Summary {
  runs: number;
  resolved: number;
  tokens: number;
  counted: number;
}
const summary: fc.Arbitrary<Summary> = fc.record({
  runs,
  resolved: runs,
  tokens: fc.integer({ min: 0, max: 2_000_000 }),
  counted: fc.integer({ min: 0, max: 5 }),
});

const op = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('write' as const), task: fc.nat(), miner: fc.nat(), s: summary }),
    weight: 8,
  },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), task: fc.nat(), miner: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('baseline' as const), task: fc.nat(), s: summary }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('exclude' as const), miner: fc.nat(), on: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('unlist' as const), miner: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('retag' as const), task: fc.nat(), complexity: COMPLEXITY }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('restage' as const), task: fc.nat(), stage: STAGE }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('planned' as const), task: fc.nat(), runs: fc.option(runs) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('addTask' as const), id: fc.nat({ max: 9 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('dropTask' as const), task: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('burn' as const), ratio: fc.double({ min: 0, max: 1, noNaN: true }) }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('stages' as const), stages: fc.subarray([...STAGES]) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('weights' as const), scale: fc.constantFrom(0.5, 1, 3) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('reread' as const), shuffle: fc.boolean(), seed: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('repeat' as const), at: fc.nat() }), weight: 1 },
);

interface World {
  tasks: ScoringTask[];
  miners: ScoringMiner[];
  entries: MinerTaskSummary[];
  stages: Stage[];
  burnRatio: number;
}

const entryOf = (taskId: string, hotkey: string, s: Summary): MinerTaskSummary => {
  const resolved = Math.min(s.resolved, s.runs);
  const tokenCount = Math.min(s.counted, s.runs);
  return { taskId, hotkey, runs: s.runs, resolved, tokenCount, tokenSum: tokenCount > 0 ? s.tokens : 0 };
};

function initial(): World {
  const tasks: ScoringTask[] = Array.from({ length: TASKS }, (_, i) => ({
    id: `t${i}`,
    stage: 'evaluation',
    complexity: (['short', 'medium', 'long', null] as const)[i % 4] ?? null,
    plannedRuns: null,
    baseline: { runs: 3, resolved: i % 4, resolvedTokenSum: 300 * (i % 4), resolvedTokenCount: i % 4 },
  }));
  const miners = HOTKEYS.slice(0, 4).map((hotkey) => ({ hotkey, excluded: false }));
  const entries: MinerTaskSummary[] = [];
  for (const t of tasks)
    for (const m of miners) entries.push(entryOf(t.id, m.hotkey, { runs: 3, resolved: 2, tokens: 500, counted: 3 }));
  return { tasks, miners, entries, stages: ['screener_2', 'evaluation'], burnRatio: 0.1 };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

type Op = typeof op extends fc.Arbitrary<infer O> ? O : never;

/** The world after one operation; arrays and objects are replaced, never changed. */
function apply(w: World, o: Op): World {
  const taskAt = (i: number) => w.tasks[i % Math.max(1, w.tasks.length)];
  const hotkey = (i: number) => HOTKEYS[i % HOTKEYS.length]!;
  const replaceTask = (i: number, change: (t: ScoringTask) => ScoringTask): World => {
    const t = taskAt(i);
    return t ? { ...w, tasks: w.tasks.map((x) => (x === t ? change(x) : x)) } : w;
  };
  switch (o.kind) {
    case 'write': {
      const t = taskAt(o.task);
      if (!t) return w;
      const e = entryOf(t.id, hotkey(o.miner), o.s);
      const at = w.entries.findIndex((x) => x.taskId === e.taskId && x.hotkey === e.hotkey);
      return { ...w, entries: at < 0 ? [...w.entries, e] : w.entries.map((x, i) => (i === at ? e : x)) };
    }
    case 'delete': {
      const t = taskAt(o.task);
      return { ...w, entries: w.entries.filter((x) => !(x.taskId === t?.id && x.hotkey === hotkey(o.miner))) };
    }
    case 'baseline':
      return replaceTask(o.task, (t) => ({
        ...t,
        baseline: {
          runs: o.s.runs,
          resolved: Math.min(o.s.resolved, o.s.runs),
          resolvedTokenCount: Math.min(o.s.counted, o.s.resolved, o.s.runs),
          resolvedTokenSum: Math.min(o.s.counted, o.s.resolved, o.s.runs) > 0 ? o.s.tokens : 0,
        },
      }));
    case 'exclude': {
      const h = hotkey(o.miner);
      const listed = w.miners.some((m) => m.hotkey === h);
      const miners = listed
        ? w.miners.map((m) => (m.hotkey === h ? { hotkey: h, excluded: o.on } : m))
        : [...w.miners, { hotkey: h, excluded: o.on }];
      return { ...w, miners };
    }
    case 'unlist':
      return { ...w, miners: w.miners.filter((m) => m.hotkey !== hotkey(o.miner)) };
    case 'retag':
      return replaceTask(o.task, (t) => ({ ...t, complexity: o.complexity }));
    case 'restage':
      return replaceTask(o.task, (t) => ({ ...t, stage: o.stage }));
    case 'planned':
      return replaceTask(o.task, (t) => ({ ...t, plannedRuns: o.runs }));
    case 'addTask': {
      const id = `n${o.id}`;
      if (w.tasks.some((t) => t.id === id)) return w;
      const baseline = { runs: 2, resolved: 1, resolvedTokenSum: 700, resolvedTokenCount: 1 };
      return { ...w, tasks: [...w.tasks, { id, stage: 'evaluation', complexity: 'long', plannedRuns: 4, baseline }] };
    }
    case 'dropTask': {
      const t = taskAt(o.task);
      return { ...w, tasks: w.tasks.filter((x) => x !== t), entries: w.entries.filter((e) => e.taskId !== t?.id) };
    }
    case 'burn':
      return { ...w, burnRatio: o.ratio };
    case 'stages':
      return { ...w, stages: o.stages };
    case 'weights':
      // New token weights: every entry read again with its token sum weighted otherwise.
      return { ...w, entries: w.entries.map((e) => ({ ...e, tokenSum: e.tokenSum * o.scale })) };
    case 'reread': {
      // The list read afresh: equal values in new objects, in the same or another order.
      const fresh = w.entries.map((e) => ({ ...e }));
      return { ...w, entries: o.shuffle ? shuffled(fresh, o.seed) : fresh };
    }
    case 'repeat': {
      const e = w.entries[o.at % Math.max(1, w.entries.length)];
      return e ? { ...w, entries: [...w.entries, { ...e, runs: 1, resolved: 1 }] } : w;
    }
  }
}

/** What changed from one list to the next, by identity, as src/db/pairMirror.ts `changes` tells it. */
function changesOf(from: MinerTaskSummary[], to: MinerTaskSummary[]): EntryChanges {
  const [was, now] = [new Set(from), new Set(to)];
  return { from, to, added: to.filter((e) => !was.has(e)), gone: from.filter((e) => !now.has(e)) };
}

const inputOf = (w: World): CompetitionInput => ({
  tasks: w.tasks,
  miners: w.miners,
  minerTasks: w.entries,
  stages: w.stages,
  burnRatio: w.burnRatio,
});

describe('scoreIncrementally properties (SPEC 3–8)', () => {
  it('equals scoreCompetition number for number after every write, deletion, exclusion, re-tag and setting change', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.nat(), (ops, pick) => {
        let w = initial();
        const states: ScoringState[] = [];
        // Scores handed out, with their JSON then: a later scoring reuses their miners' objects
        // (src/scoring/competitionScores.ts `kept`) and must never change them.
        const handed: [CompetitionScores, string][] = [];
        let state: ScoringState | undefined;
        for (const o of ops) {
          const before = w.entries;
          w = apply(w, o);
          const input = inputOf(w);
          const expected = scoreCompetition(input, { keepTasks: false });
          const next = scoreIncrementally(state, input);
          expect(next.scores).toEqual(expected);
          expect(JSON.stringify(next.scores)).toBe(JSON.stringify(expected));
          // Told what changed in the list (as the store's in-memory pairs tell it), the same again.
          const told = scoreIncrementally(state, input, changesOf(before, w.entries));
          expect(JSON.stringify(told.scores)).toBe(JSON.stringify(expected));
          // An earlier state stays valid: scoring from it gives the same again.
          const older = states[pick % Math.max(1, states.length)];
          if (older) expect(JSON.stringify(scoreIncrementally(older, input).scores)).toBe(JSON.stringify(expected));
          state = next.state;
          states.push(state);
          handed.push([next.scores, JSON.stringify(next.scores)]);
        }
        for (const [scores, json] of handed) expect(JSON.stringify(scores)).toBe(json);
      }),
      { numRuns: 300 },
    );
  });
});
