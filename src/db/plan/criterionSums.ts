// The per-criterion graded, met and split counts a set of graded runs makes: added for a batch,
// taken out for a deletion, or counted afresh for a rebuild. One entry per (task, criterion), in
// the order first graded.

/** What the counts read of a run's grading. */
export interface GradedRun {
  taskId: string;
  criteria?: readonly { criterionId: string; met: boolean; split: boolean }[] | null;
}

export interface CriterionDelta {
  taskId: string;
  id: string;
  graded: number;
  met: number;
  split: number;
}

export function criterionSums(runs: Iterable<GradedRun>, sign: 1 | -1 = 1): CriterionDelta[] {
  const sums = new Map<string, CriterionDelta>();
  for (const r of runs) {
    for (const g of r.criteria ?? []) {
      const key = `${r.taskId}\u0000${g.criterionId}`;
      let s = sums.get(key);
      if (!s) sums.set(key, (s = { taskId: r.taskId, id: g.criterionId, graded: 0, met: 0, split: 0 }));
      s.graded += sign;
      if (g.met) s.met += sign;
      if (g.split) s.split += sign;
    }
  }
  return [...sums.values()];
}
