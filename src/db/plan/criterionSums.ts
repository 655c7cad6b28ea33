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
  // In the order first graded; found by task, then criterion, in nested maps rather than by a key
  // string built for every graded criterion of every run (garbage a batch of QnA runs makes by the
  // thousand).
  const sums: CriterionDelta[] = [];
  const byTask = new Map<string, Map<string, CriterionDelta>>();
  for (const r of runs) {
    if (!r.criteria) continue;
    let byId = byTask.get(r.taskId);
    if (!byId) byTask.set(r.taskId, (byId = new Map<string, CriterionDelta>()));
    for (const g of r.criteria) {
      let s = byId.get(g.criterionId);
      if (!s) {
        s = { taskId: r.taskId, id: g.criterionId, graded: 0, met: 0, split: 0 };
        byId.set(g.criterionId, s);
        sums.push(s);
      }
      s.graded += sign;
      if (g.met) s.met += sign;
      if (g.split) s.split += sign;
    }
  }
  return sums;
}
