// SPEC 2-6 and 11 written again from SPEC.md alone, for the audit's random competitions
// (test/http/specOracle.test.ts): raw runs in, leaderboard order, ranks, scores, weights and the
// chain vector out. Written without reading or importing src/scoring: an independent reading, as
// plain as the text, so a disagreement with the server points at one of the two readings.

export interface OTask {
  id: string;
  stage: string;
  complexity: 'short' | 'medium' | 'long' | null;
  plannedRuns: number | null;
}
export interface ORun {
  taskId: string;
  hotkey: string | null;
  resolved: boolean;
  tokens: { input: number; cachedInput?: number; output: number } | null;
}
export interface OInput {
  tasks: OTask[];
  runs: ORun[];
  excluded: Set<string>;
  stages: string[];
  burnRatio: number;
  w: { input: number; cachedInput: number; output: number };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const close = (a: number, b: number) =>
  Math.abs(a - b) <= 1e-12 || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((s, v) => s + v, 0) / xs.length);

function T(run: ORun, w: OInput['w']): number | null {
  if (!run.tokens) return null;
  const v = w.input * run.tokens.input + w.cachedInput * (run.tokens.cachedInput ?? 0) + w.output * run.tokens.output;
  return v > 0 ? v : null;
}

interface Scored {
  pool: 'main' | 'hard_boost';
  s: number;
  x: number;
  complexity: OTask['complexity'];
}

/** S_N over some scored tasks (SPEC 5), null when none is in main or hard_boost. */
function normalized(tasks: Scored[]): number | null {
  const main = tasks.filter((t) => t.pool === 'main');
  const hard = tasks.filter((t) => t.pool === 'hard_boost');
  if (main.length + hard.length === 0) return null;
  const wsum = main.reduce((s, t) => s + Math.cbrt(t.x), 0);
  const sm = main.length === 0 ? 0 : main.reduce((s, t) => s + t.s * Math.cbrt(t.x), 0) / wsum;
  const bh = hard.length === 0 ? 0 : hard.reduce((s, t) => s + Math.max(0, t.s), 0) / (main.length + hard.length);
  return (2 * clamp(sm + bh, -4, 3) + 1) / 7;
}

export interface OResult {
  board: { hotkey: string; rank: number | null; normalizedScore: number | null; groups: Record<string, number> }[];
  groups: string[];
  winners: string[][];
  finalWeights: Record<string, number>;
  burnWeight: number;
}

export function oracle(input: OInput): OResult {
  const { w } = input;
  const tasks = input.tasks.filter((t) => input.stages.includes(t.stage));
  const miners = [...new Set(input.runs.filter((r) => r.hotkey !== null).map((r) => r.hotkey!))].filter(
    (h) => !input.excluded.has(h),
  );
  const scored = new Map<string, Scored[]>(miners.map((m) => [m, []]));
  for (const task of tasks) {
    const base = input.runs.filter((r) => r.taskId === task.id && r.hotkey === null);
    if (base.length === 0) continue; // SPEC 3 (choice): not scored yet
    const x = base.filter((r) => r.resolved).length;
    const tb = mean(
      base
        .filter((r) => r.resolved)
        .map((r) => T(r, w))
        .filter((v): v is number => v !== null),
    );
    for (const m of miners) {
      const own = input.runs.filter((r) => r.taskId === task.id && r.hotkey === m);
      if (own.length === 0) continue;
      const y = own.filter((r) => r.resolved).length;
      const ta = mean(own.map((r) => T(r, w)).filter((v): v is number => v !== null));
      const n = Math.max(task.plannedRuns ?? 0, base.length, own.length, 1);
      const r = tb === null || ta === null ? 0 : clamp(Math.log2(tb / ta), -2, 2);
      const t = Math.floor(0.8 * x);
      const bonus = () => clamp(r + (y - x) / (n - x), -2, 3);
      if (x <= 1) {
        if (y === 0) continue;
        scored
          .get(m)!
          .push({ pool: 'hard_boost', s: x === 1 && y === 1 ? r : bonus(), x, complexity: task.complexity });
      } else {
        const s = y < t ? clamp(-2 - 2 * (1 - y / t), -4, -2) : y <= x ? r : bonus();
        scored.get(m)!.push({ pool: 'main', s, x, complexity: task.complexity });
      }
    }
  }
  const rows = miners.map((m) => {
    const own = scored.get(m)!;
    const groups: Record<string, number> = {};
    for (const g of ['short', 'medium', 'long'] as const) {
      const v = normalized(own.filter((t) => t.complexity === g));
      if (v !== null) groups[g] = v;
    }
    return { hotkey: m, sn: normalized(own), groups };
  });
  // SPEC 5 order and ranks.
  const ranked = rows.filter((r) => r.sn !== null).sort((a, b) => b.sn! - a.sn! || (a.hotkey < b.hotkey ? -1 : 1));
  const board: OResult['board'] = [];
  for (let i = 0; i < ranked.length;) {
    let j = i + 1;
    while (j < ranked.length && close(ranked[i]!.sn!, ranked[j]!.sn!)) j++;
    for (const r of ranked.slice(i, j).sort((a, b) => (a.hotkey < b.hotkey ? -1 : 1)))
      board.push({ hotkey: r.hotkey, rank: i + 1, normalizedScore: r.sn, groups: r.groups });
    i = j;
  }
  for (const r of rows.filter((r) => r.sn === null).sort((a, b) => (a.hotkey < b.hotkey ? -1 : 1)))
    board.push({ hotkey: r.hotkey, rank: null, normalizedScore: null, groups: r.groups });
  // SPEC 6.
  const field = ranked;
  const groups = ['short', 'medium', 'long'].filter((g) => field.some((r) => r.groups[g] !== undefined));
  const staticW: Record<number, number> = { 3: 0.25, 2: 0.45, 1: 0.3 };
  const subsetsOf = (k: number): string[][] => {
    const out: string[][] = [];
    const walk = (from: number, pick: string[]) => {
      if (pick.length === k) return void out.push(pick);
      for (let i = from; i < groups.length; i++) walk(i + 1, [...pick, groups[i]!]);
    };
    walk(0, []);
    return out;
  };
  const elements: { subset: string[]; weight: number }[] = [];
  if (groups.length === 0) elements.push({ subset: ['overall'], weight: 1 });
  else {
    let total = 0;
    for (let k = groups.length; k >= 1; k--) total += staticW[k]!;
    for (let k = groups.length; k >= 1; k--) {
      const subs = subsetsOf(k);
      for (const subset of subs) elements.push({ subset, weight: staticW[k]! / total / subs.length });
    }
  }
  const W = new Map<string, number>(field.map((r) => [r.hotkey, 0]));
  const winners: string[][] = [];
  for (const el of elements) {
    const entries: [string, number][] = [];
    for (const r of field) {
      if (el.subset[0] === 'overall') entries.push([r.hotkey, r.sn!]);
      else if (el.subset.every((g) => r.groups[g] !== undefined))
        entries.push([r.hotkey, el.subset.reduce((s, g) => s + r.groups[g]!, 0) / el.subset.length]);
    }
    if (entries.length === 0) {
      winners.push([]);
      continue;
    }
    const best = Math.max(...entries.map((e) => e[1]));
    const won = entries
      .filter((e) => close(e[1], best))
      .map((e) => e[0])
      .sort();
    winners.push(won);
    for (const h of won) W.set(h, W.get(h)! + el.weight / won.length);
  }
  const sumW = [...W.values()].reduce((s, v) => s + v, 0);
  const finalWeights: Record<string, number> = {};
  for (const [h, v] of W) finalWeights[h] = sumW > 0 ? (v / sumW) * (1 - input.burnRatio) : 0;
  const paid = Object.values(finalWeights).reduce((s, v) => s + v, 0);
  return { board, groups, winners, finalWeights, burnWeight: sumW > 0 ? 1 - paid : 1 };
}

/** SPEC 11: floats by uid, then the SDK's integer vector (round half to even). */
export function oracleChain(
  r: OResult,
  neurons: { uid: number; hotkey: string }[],
  burnUid: number,
): { floats: Map<number, number>; uids: number[]; weights: number[]; unrounded: number[] } {
  const floats = new Map<number, number>();
  let burned = r.burnWeight;
  for (const [h, inc] of Object.entries(r.finalWeights)) {
    const n = neurons.find((x) => x.hotkey === h);
    if (!n) burned += inc;
    else if (inc > 0) floats.set(n.uid, (floats.get(n.uid) ?? 0) + inc);
  }
  if (burned > 0) floats.set(burnUid, (floats.get(burnUid) ?? 0) + burned);
  const sorted = [...floats].sort((a, b) => a[0] - b[0]);
  const max = Math.max(0, ...sorted.map((e) => e[1]));
  const uids: number[] = [];
  const weights: number[] = [];
  const unrounded: number[] = [];
  if (max > 0)
    for (const [uid, f] of sorted) {
      const v = (f / max) * 65535;
      const fl = Math.floor(v);
      const i = v - fl < 0.5 ? fl : v - fl > 0.5 ? fl + 1 : fl % 2 === 0 ? fl : fl + 1;
      if (i !== 0) {
        uids.push(uid);
        weights.push(i);
        unrounded.push(v);
      }
    }
  return { floats: new Map(sorted), uids, weights, unrounded };
}
