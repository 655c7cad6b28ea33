// The stability report's core (SPEC 12) on hand-made input: groups in change then polarity order,
// counts and rates per party, tallies on criteria outside the stages left out, null rates with no
// verdict, and every miner in every group; the same tallies added a slice at a time, a key split
// over slices, give the same report.
import { describe, expect, it } from 'vitest';
import {
  stabilityReport,
  stabilitySums,
  type CriterionTally,
  type ReportCriterion,
} from '../../src/scoring/stabilityReport.js';

const crit = (taskId: string, id: string, type: 'positive' | 'negative', change: string | null): ReportCriterion => ({
  taskId,
  id,
  type,
  change,
});
const tally = (
  taskId: string,
  criterionId: string,
  hotkey: string | null,
  verdicts: number,
  met: number,
  split: number,
): CriterionTally => ({
  taskId,
  criterionId,
  hotkey,
  verdicts,
  met,
  split,
});

describe('stabilityReport', () => {
  it('groups by change then polarity, each party counted apart and pooled', () => {
    const criteria = [
      crit('t1', 'a', 'negative', 'scale-correction'),
      crit('t1', 'b', 'positive', 'precision'),
      crit('t1', 'c', 'positive', null),
      crit('t2', 'c', 'negative', null),
      crit('t2', 'd', 'positive', 'stability'),
      crit('t2', 'e', 'positive', null),
    ];
    const tallies = [
      tally('t1', 'c', null, 4, 3, 1),
      tally('t2', 'e', null, 2, 0, 2),
      tally('t1', 'c', 'm2', 3, 3, 0),
      tally('t2', 'd', 'm1', 5, 1, 4),
      // t3 is not in the stages, and t1 has no criterion z: neither counts.
      tally('t3', 'c', 'm3', 9, 9, 9),
      tally('t1', 'z', 'm1', 9, 9, 9),
    ];
    const groups = stabilityReport(criteria, tallies);
    expect(groups.map((g) => [g.change, g.polarity, g.criteria])).toEqual([
      [null, 'positive', 2],
      [null, 'negative', 1],
      ['stability', 'positive', 1],
      ['precision', 'positive', 1],
      ['scale-correction', 'negative', 1],
    ]);
    const [unchanged, unchangedNeg, stability] = groups;
    expect(unchanged!.pooled).toEqual({ verdicts: 9, met: 6, split: 3, metRate: 6 / 9, splitRate: 3 / 9 });
    expect(unchanged!.baseline).toEqual({ verdicts: 6, met: 3, split: 3, metRate: 0.5, splitRate: 0.5 });
    expect(unchanged!.miners).toEqual({
      m1: { verdicts: 0, met: 0, split: 0, metRate: null, splitRate: null },
      m2: { verdicts: 3, met: 3, split: 0, metRate: 1, splitRate: 0 },
    });
    expect(Object.keys(unchangedNeg!.miners)).toEqual(['m1', 'm2']);
    expect(unchangedNeg!.pooled.metRate).toBeNull();
    expect(stability!.miners.m1).toEqual({ verdicts: 5, met: 1, split: 4, metRate: 0.2, splitRate: 0.8 });
    expect(stability!.baseline.verdicts).toBe(0);
  });

  it('puts a change kind it does not know after the known ones, and gives nothing for no criteria', () => {
    const groups = stabilityReport([crit('t', 'x', 'positive', 'other'), crit('t', 'y', 'positive', 'precision')], []);
    expect(groups.map((g) => g.change)).toEqual(['precision', 'other']);
    expect(stabilityReport([], [tally('t', 'x', null, 1, 1, 0)])).toEqual([]);
  });

  it('gives the same report from tallies added in slices, one key split over several', () => {
    const criteria = [crit('t1', 'a', 'positive', null), crit('t1', 'b', 'negative', 'precision')];
    const whole = [tally('t1', 'a', 'm1', 6, 4, 2), tally('t1', 'b', null, 3, 1, 1), tally('t1', 'a', null, 2, 2, 0)];
    const sums = stabilitySums(criteria);
    sums.add([tally('t1', 'a', 'm1', 1, 1, 0), tally('t1', 'b', null, 3, 1, 1)]);
    sums.add([]);
    sums.add([tally('t1', 'a', 'm1', 5, 3, 2), tally('t1', 'a', null, 2, 2, 0)]);
    expect(sums.groups()).toEqual(stabilityReport(criteria, whole));
    expect(sums.groups()[0]!.miners.m1!.verdicts).toBe(6);
  });
});
