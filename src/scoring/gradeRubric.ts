import type { Criterion, CriterionGrade, CriterionVotes, RubricGrade } from './types.js';

/**
 * SPEC 7: grades one QnA run from judge votes.
 *
 * The vote set must name every rubric criterion exactly once, no unknown id, with exactly
 * `judgeVotes` votes each. The first problem is reported, in a fixed order so a resubmission
 * gets the same answer: the submitted entries in order (unknown, repeated, vote_count), then
 * the rubric in order (missing).
 *
 * A criterion's verdict is the majority of its votes (YES only on a strict majority, so a tie,
 * impossible with an odd vote count, reads NO). Polarity applies after the vote: a positive
 * criterion is met by YES, a negative one by NO. Split means not unanimous. The run is resolved
 * only if every criterion is met; an empty rubric resolves nothing (choice: never a vacuous pass).
 * Criteria come back in rubric order.
 */
export function gradeRubric(
  criteria: readonly Criterion[],
  votes: readonly CriterionVotes[],
  judgeVotes: number,
): RubricGrade {
  const rubric = new Map<string, Criterion>();
  for (const c of criteria) if (!rubric.has(c.id)) rubric.set(c.id, c);
  const submitted = new Map<string, CriterionVotes>();
  for (const entry of votes) {
    const criterionId = entry.criterionId;
    if (!rubric.has(criterionId)) return { ok: false, problem: { kind: 'unknown', criterionId } };
    if (submitted.has(criterionId)) return { ok: false, problem: { kind: 'repeated', criterionId } };
    const actual = entry.votes.length;
    if (actual !== judgeVotes) {
      return { ok: false, problem: { kind: 'vote_count', criterionId, expected: judgeVotes, actual } };
    }
    submitted.set(criterionId, entry);
  }
  const graded: CriterionGrade[] = [];
  for (const [criterionId, criterion] of rubric) {
    const entry = submitted.get(criterionId);
    if (!entry) return { ok: false, problem: { kind: 'missing', criterionId } };
    let yes = 0;
    for (const vote of entry.votes) if (vote.verdict === 'YES') yes += 1;
    const no = entry.votes.length - yes;
    const verdict = yes > no ? 'YES' : 'NO';
    const met = criterion.type === 'negative' ? verdict === 'NO' : verdict === 'YES';
    graded.push({ criterionId, yes, no, verdict, met, split: yes > 0 && no > 0 });
  }
  const resolved = graded.length > 0 && graded.every((c) => c.met);
  return { ok: true, resolved, criteria: graded };
}
