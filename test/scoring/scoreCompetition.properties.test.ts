import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreCompetition } from '../../src/scoring/scoreCompetition.js';
import { COMPLEXITIES } from '../../src/scoring/types.js';
import { shuffle } from '../support/prng.js';
import { rawCompetition, toInput } from './arbitraries.js';

const RUNS = { numRuns: 300 };

describe('scoreCompetition properties (SPEC 5–6)', () => {
  it('every S_N and group score lies in [−1, 1] and every task score in [−4, 3]', () => {
    fc.assert(
      fc.property(rawCompetition, (raw) => {
        for (const m of scoreCompetition(toInput(raw)).miners) {
          for (const s of [m.normalizedScore, ...Object.values(m.groupScores)]) {
            if (s === null) continue;
            expect(s).toBeGreaterThanOrEqual(-1);
            expect(s).toBeLessThanOrEqual(1);
          }
          for (const t of m.tasks) {
            if (t.score === null) continue;
            expect(t.score).toBeGreaterThanOrEqual(-4);
            expect(t.score).toBeLessThanOrEqual(3);
          }
        }
      }),
      RUNS,
    );
  });

  it('final weights sum to 1 − burnRatio whenever anyone wins; otherwise all are 0 and burn is 1', () => {
    fc.assert(
      fc.property(rawCompetition, (raw) => {
        const { weights } = scoreCompetition(toInput(raw));
        const won = Object.values(weights.rawWeights).some((w) => w > 0);
        const paid = Object.values(weights.finalWeights).reduce((a, b) => a + b, 0);
        if (won) {
          expect(Math.abs(paid - (1 - raw.burnRatio))).toBeLessThanOrEqual(1e-9);
          expect(Math.abs(weights.burnWeight - raw.burnRatio)).toBeLessThanOrEqual(1e-9);
        } else {
          expect(paid).toBe(0);
          expect(weights.burnWeight).toBe(1);
        }
      }),
      RUNS,
    );
  });

  it('shuffling the order of runs, tasks, miners or summaries changes no number', () => {
    fc.assert(
      fc.property(rawCompetition, fc.integer(), (raw, seed) => {
        const expected = scoreCompetition(toInput(raw));
        const input = toInput({ ...raw, runs: shuffle(raw.runs, seed) });
        input.tasks = shuffle(input.tasks, seed + 1);
        input.miners = shuffle(input.miners, seed + 2);
        input.minerTasks = shuffle(input.minerTasks, seed + 3);
        const actual = scoreCompetition(input);
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      }),
      RUNS,
    );
  });

  it('a miner’s group score equals its S_N computed over that group’s tasks alone', () => {
    fc.assert(
      fc.property(rawCompetition, (raw) => {
        const full = scoreCompetition(toInput(raw)).miners;
        for (const group of COMPLEXITIES) {
          const tasks = raw.tasks.filter((t) => t.complexity === group);
          const ids = new Set(tasks.map((t) => t.id));
          const alone = scoreCompetition(toInput({ ...raw, tasks, runs: raw.runs.filter((r) => ids.has(r.taskId)) }));
          for (const m of full) {
            const g = m.groupScores[group];
            const s = alone.miners.find((a) => a.hotkey === m.hotkey)?.normalizedScore ?? null;
            if (g === undefined) expect(s).toBeNull();
            else expect(s).toBeCloseTo(g, 12);
          }
        }
      }),
      RUNS,
    );
  });

  it('excluded miners have no rank, no score and no weight; ranked miners come first', () => {
    fc.assert(
      fc.property(rawCompetition, (raw) => {
        const { miners } = scoreCompetition(toInput(raw));
        for (const m of miners.filter((x) => x.excluded)) {
          expect(m).toMatchObject({ rank: null, normalizedScore: null, groupScores: {}, tasks: [] });
          expect(m.incentive).toEqual({ rawWeight: 0, finalWeight: 0 });
        }
        const ranks = miners.map((m) => m.rank);
        const firstNull = ranks.indexOf(null);
        if (firstNull >= 0) expect(ranks.slice(firstNull).every((r) => r === null)).toBe(true);
      }),
      RUNS,
    );
  });

  it('without kept task lists every number is the same and every task list is empty', () => {
    fc.assert(
      fc.property(rawCompetition, (raw) => {
        const full = scoreCompetition(toInput(raw));
        const lean = scoreCompetition(toInput(raw), { keepTasks: false });
        expect(lean.miners.every((m) => m.tasks.length === 0)).toBe(true);
        expect(lean).toEqual({ ...full, miners: full.miners.map((m) => ({ ...m, tasks: [] })) });
      }),
      RUNS,
    );
  });
});
