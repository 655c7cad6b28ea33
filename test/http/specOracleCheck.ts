// The audit's random competitions (./specOracle.test.ts): their state as the test wrote it, how it
// draws tasks and token counts, and the check of every read against the independent reading of
// SPEC (./specOracle.ts) after each write.
import { expect } from 'vitest';
import type { TestApp } from '../support/app.js';
import type { Rng } from '../support/prng.js';
import { oracle, oracleChain, type OInput, type ORun, type OTask } from './specOracle.js';

const STAGE_SETS = [
  ['screener_2', 'evaluation'],
  ['screener_1', 'screener_2', 'evaluation'],
];

export interface Stored extends ORun {
  runId: string;
  /** The validator that sent it (its index). */
  by: number;
}

export interface State {
  runs: Stored[];
  tasks: OTask[];
  excluded: Set<string>;
  /** Excluded validators, by index. */
  offValidators: Set<number>;
  burnRatio: number;
  w: OInput['w'];
  mg: { neurons: { uid: number; hotkey: string }[]; burnUid: number };
  validatorIds: string[];
}

export function randomTask(rng: Rng, id: string): OTask {
  return {
    id,
    stage: rng.chance(0.15) ? 'screener_1' : rng.chance(0.2) ? 'screener_2' : 'evaluation',
    complexity: rng.pick(['short', 'medium', 'long', null, 'short'] as const),
    plannedRuns: rng.chance(0.4) ? rng.int(1, 6) : null,
  };
}

export function randomTokens(rng: Rng): ORun['tokens'] {
  if (rng.chance(0.08)) return null;
  if (rng.chance(0.05)) return { input: 0, output: 0 };
  const tokens: NonNullable<ORun['tokens']> = { input: rng.int(0, 3000), output: rng.int(0, 400) };
  if (rng.chance(0.5)) tokens.cachedInput = rng.int(0, 20000);
  return tokens;
}

/**
 * SPEC 10 by hand for validators by index: per (task, miner or baseline) pair of the stages, each
 * validator's resolve rate against the other counted validators' pooled.
 */
function agreementOf(state: State, stages: string[]) {
  const inStages = new Set(state.tasks.filter((x) => stages.includes(x.stage)).map((x) => x.id));
  const pairs = new Map<string, Stored[]>();
  for (const r of state.runs.filter((x) => inStages.has(x.taskId))) {
    const key = `${r.taskId}/${r.hotkey ?? ''}`;
    pairs.set(key, [...(pairs.get(key) ?? []), r]);
  }
  return [0, 1].map((v) => {
    let shared = 0;
    let sum = 0;
    for (const list of pairs.values()) {
      const own = list.filter((r) => r.by === v);
      const others = list.filter((r) => r.by !== v && !state.offValidators.has(r.by));
      if (own.length === 0 || others.length === 0) continue;
      shared++;
      sum +=
        own.filter((r) => r.resolved).length / own.length - others.filter((r) => r.resolved).length / others.length;
    }
    const delta = shared === 0 ? null : sum / shared;
    return {
      sharedPairs: shared,
      resolveRateDelta: delta,
      flagged: shared >= 10 && delta !== null && Math.abs(delta) >= 0.2 - 1e-12,
    };
  });
}

export async function check(t: TestApp, label: string, state: State) {
  const { tasks, excluded, burnRatio, mg } = state;
  // SPEC 10: an excluded validator's runs count nowhere, as if never sent.
  const runs = state.runs.filter((r) => !state.offValidators.has(r.by));
  for (const stages of STAGE_SETS) {
    const q = `?stages=${stages.join(',')}`;
    const input: OInput = { tasks, runs, excluded, stages, burnRatio, w: state.w };
    const want = oracle(input);
    const lb = (await t.call({ method: 'GET', url: `/v1/competitions/c/leaderboard${q}` })).body;
    const ranked = (
      lb.miners as {
        hotkey: string;
        rank: number | null;
        normalizedScore: number | null;
        excluded: boolean;
        groupScores: Record<string, number>;
      }[]
    ).filter((m) => m.rank !== null);
    const ctx = `${label} ${q}`;
    expect(
      ranked.map((m) => [m.hotkey, m.rank]),
      ctx,
    ).toEqual(want.board.filter((m) => m.rank !== null).map((m) => [m.hotkey, m.rank]));
    for (const m of ranked) {
      const o = want.board.find((x) => x.hotkey === m.hotkey)!;
      expect(m.normalizedScore, ctx).toBeCloseTo(o.normalizedScore!, 9);
      expect(Object.keys(m.groupScores).sort(), ctx).toEqual(Object.keys(o.groups).sort());
    }
    const w = (await t.call({ method: 'GET', url: `/v1/competitions/c/weights${q}` })).body;
    expect(w.groups, ctx).toEqual(want.groups);
    const winners = (w.layers as { elements: { winners: string[] }[] }[]).flatMap((l) =>
      l.elements.map((e) => e.winners),
    );
    expect(winners, ctx).toEqual(want.winners);
    for (const h of new Set([...Object.keys(w.finalWeights), ...Object.keys(want.finalWeights)]))
      expect(w.finalWeights[h] ?? 0, `${ctx} ${h}`).toBeCloseTo(want.finalWeights[h] ?? 0, 12);
    expect(w.burnWeight, ctx).toBeCloseTo(want.burnWeight, 12);
    // SPEC 13: every task of the stages with its baseline, and every miner that takes part: seen in a
    // run, or registered at a uid other than burnUid and not a validator; the excluded in none.
    const seen = new Set(runs.filter((r) => r.hotkey !== null).map((r) => r.hotkey!));
    for (const n of mg.neurons) if (n.uid !== mg.burnUid) seen.add(n.hotkey);
    const takingPart = [...seen].filter((h) => !excluded.has(h)).sort();
    const pairs = [];
    for (const task of [...tasks].filter((x) => stages.includes(x.stage)).sort((a, b) => (a.id < b.id ? -1 : 1)))
      for (const miner of ['baseline', ...takingPart]) {
        const planned = task.plannedRuns ?? 5;
        const have = runs.filter((r) => r.taskId === task.id && (r.hotkey ?? 'baseline') === miner).length;
        pairs.push({ taskId: task.id, miner, planned, have, missing: Math.max(0, planned - have) });
      }
    const cover = (await t.call({ method: 'GET', url: `/v1/competitions/c/coverage${q}&limit=10000` })).body;
    expect(cover.pairs, ctx).toEqual(pairs);
    expect(cover.summary.complete, ctx).toBe(pairs.every((p) => p.missing === 0));
    const table = (await t.call({ method: 'GET', url: `/v1/competitions/c/validators${q}` })).body.validators as {
      id: string;
      agreement: { sharedPairs: number; resolveRateDelta: number | null; flagged: boolean };
    }[];
    agreementOf(state, stages).forEach((want, v) => {
      const got = table.find((x) => x.id === state.validatorIds[v])?.agreement ?? {
        sharedPairs: 0,
        resolveRateDelta: null,
        flagged: false,
      };
      expect([got.sharedPairs, got.flagged], `${ctx} validator ${v}`).toEqual([want.sharedPairs, want.flagged]);
      if (want.resolveRateDelta === null) expect(got.resolveRateDelta, ctx).toBeNull();
      else expect(got.resolveRateDelta, ctx).toBeCloseTo(want.resolveRateDelta, 12);
    });
    const chain = (await t.call({ method: 'GET', url: `/v1/competitions/c/weights/chain${q}` })).body;
    const oc = oracleChain(want, mg.neurons, mg.burnUid);
    expect(chain.uids, ctx).toEqual(oc.uids);
    expect(chain.weights.length, ctx).toBe(oc.weights.length);
    // Within rounding of a half, the two readings' floats may round either way: the server's floats are
    // the SPEC's, the oracle's differ from them in the last bits.
    (chain.weights as number[]).forEach((got, i) => {
      const v = oc.unrounded[i]!;
      if (Math.abs(v - Math.floor(v) - 0.5) < 1e-6) expect([Math.floor(v), Math.ceil(v)], ctx).toContain(got);
      else expect(got, ctx).toBe(oc.weights[i]);
    });
    // A burn weight of 1 − ΣINC with burnRatio 0 may be a rounding remainder (2.2e-16) in one
    // reading and 0 in the other: floats below 1e-12 are rounding, on either side.
    const floats = Object.entries(chain.floats as Record<string, number>).filter(([, f]) => f > 1e-12);
    expect(
      floats.map(([uid]) => Number(uid)),
      ctx,
    ).toEqual([...oc.floats].filter(([, f]) => f > 1e-12).map(([uid]) => uid));
    for (const [uid, f] of floats) expect(f, ctx).toBeCloseTo(oc.floats.get(Number(uid))!, 12);
  }
}
