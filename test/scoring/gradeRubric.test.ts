import { describe, expect, it } from 'vitest';
import { gradeRubric } from '../../src/scoring/gradeRubric.js';
import type { Criterion, CriterionVotes, Polarity, Verdict } from '../../src/scoring/types.js';

const RUBRIC: Criterion[] = [
  { id: 'p', type: 'positive' },
  { id: 'n', type: 'negative' },
];
/** Votes on a criterion from a string of Y/N letters. */
const cast = (criterionId: string, letters: string): CriterionVotes => ({
  criterionId,
  votes: [...letters].map((c) => ({ verdict: c === 'Y' ? 'YES' : 'NO' })),
});

describe('gradeRubric: verdicts and polarity (SPEC 7)', () => {
  // Rows: polarity, votes, verdict, met, split.
  it.each([
    ['positive', 'YYYNN', 'YES', true, true], // 3–2 for YES
    ['positive', 'YYNNN', 'NO', false, true], // 2–3
    ['negative', 'YYYNN', 'YES', false, true], // 3–2: the bad thing happened
    ['negative', 'YYNNN', 'NO', true, true], // 2–3: a NO majority meets a negative criterion
    ['positive', 'YYYYY', 'YES', true, false], // unanimous: not split
    ['negative', 'NNNNN', 'NO', true, false],
  ] as [Polarity, string, Verdict, boolean, boolean][])(
    '%s criterion with votes %s: majority %s, met %s, split %s',
    (type, letters, verdict, met, split) => {
      const grade = gradeRubric([{ id: 'c', type }], [cast('c', letters)], 5);
      const yes = [...letters].filter((c) => c === 'Y').length;
      expect(grade).toEqual({
        ok: true,
        resolved: met,
        criteria: [{ criterionId: 'c', yes, no: 5 - yes, verdict, met, split }],
      });
    },
  );

  it('the run is resolved when every criterion is met', () => {
    const grade = gradeRubric(RUBRIC, [cast('p', 'YYYNN'), cast('n', 'NNNYY')], 5);
    expect(grade.ok && grade.resolved).toBe(true);
  });

  it('one unmet criterion fails the whole run: no partial credit', () => {
    const grade = gradeRubric(RUBRIC, [cast('p', 'YYYYY'), cast('n', 'YYYNN')], 5);
    expect(grade.ok && grade.resolved).toBe(false);
    expect(grade.ok && grade.criteria.map((c) => c.met)).toEqual([true, false]);
  });

  it('criteria come back in rubric order whatever the submission order', () => {
    const grade = gradeRubric(RUBRIC, [cast('n', 'N'), cast('p', 'Y')], 1);
    expect(grade.ok && grade.criteria.map((c) => c.criterionId)).toEqual(['p', 'n']);
  });

  it('an empty rubric resolves nothing: no vacuous pass (choice)', () => {
    expect(gradeRubric([], [], 5)).toEqual({ ok: true, resolved: false, criteria: [] });
  });
});

describe('gradeRubric: rubric problems reject the vote set (SPEC 7)', () => {
  it.each([
    [
      'an unknown criterion',
      [cast('p', 'YYYYY'), cast('x', 'YYYYY'), cast('n', 'NNNNN')],
      { kind: 'unknown', criterionId: 'x' },
    ],
    [
      'a repeated criterion',
      [cast('p', 'YYYYY'), cast('p', 'NNNNN'), cast('n', 'NNNNN')],
      { kind: 'repeated', criterionId: 'p' },
    ],
    [
      'too few votes',
      [cast('p', 'YYYY'), cast('n', 'NNNNN')],
      { kind: 'vote_count', criterionId: 'p', expected: 5, actual: 4 },
    ],
    [
      'too many votes',
      [cast('p', 'YYYYY'), cast('n', 'NNNNNN')],
      { kind: 'vote_count', criterionId: 'n', expected: 5, actual: 6 },
    ],
    ['a missing criterion', [cast('n', 'NNNNN')], { kind: 'missing', criterionId: 'p' }],
    ['no votes at all', [], { kind: 'missing', criterionId: 'p' }],
  ])('%s', (_, votes, problem) => {
    expect(gradeRubric(RUBRIC, votes, 5)).toEqual({ ok: false, problem });
  });

  it('reports the first problem of the submitted entries, in submission order', () => {
    expect(gradeRubric(RUBRIC, [cast('p', 'YY'), cast('x', 'Y')], 5)).toEqual({
      ok: false,
      problem: { kind: 'vote_count', criterionId: 'p', expected: 5, actual: 2 },
    });
    expect(gradeRubric(RUBRIC, [cast('x', 'Y'), cast('p', 'YY')], 5)).toEqual({
      ok: false,
      problem: { kind: 'unknown', criterionId: 'x' },
    });
  });

  it('reports missing criteria only after the submitted entries pass, in rubric order', () => {
    const rubric: Criterion[] = [...RUBRIC, { id: 'q', type: 'positive' }];
    expect(gradeRubric(rubric, [cast('q', 'YY')], 5)).toMatchObject({
      problem: { kind: 'vote_count', criterionId: 'q' },
    });
    expect(gradeRubric(rubric, [cast('q', 'YYYYY')], 5)).toMatchObject({
      problem: { kind: 'missing', criterionId: 'p' },
    });
  });
});
