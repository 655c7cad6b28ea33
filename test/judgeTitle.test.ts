// SPEC 12: the judge sees a criterion's title without its leading numbering, served as judgeTitle.
// Every form of numbering in the real SWE-Atlas QnA rubrics (fixtures/swe-atlas-qna), and titles
// that only begin with a number, which keep it.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { judgeTitle } from '../src/qna/judgeTitle.js';

it.each([
  ['1.7: The answer names resetBudget', 'The answer names resetBudget'],
  ['1.1 Explains the "stuck" VU state', 'Explains the "stuck" VU state'],
  ['2.3:Identifies the lock', 'Identifies the lock'],
  ['4. Reports the error path', 'Reports the error path'],
  ['3.2. Names the flag', 'Names the flag'],
  ['12) Names the flag', 'Names the flag'],
  ['  1.10 :  Spaces around', 'Spaces around'],
  // A numbering written twice (two titles of the real task set) goes whole; a number after it stays.
  ['1.1: 1.1: twice', 'twice'],
  ['1. 2: States the fallback', 'States the fallback'],
  ['1.1: 3 retries are configured', '3 retries are configured'],
  // A title that begins with a number, not a numbering, keeps it.
  ['3 retries are configured', '3 retries are configured'],
  ['1.5x faster than before', '1.5x faster than before'],
  ['No numbering at all', 'No numbering at all'],
])('%j → %j', (title, expected) => {
  expect(judgeTitle(title)).toBe(expected);
});

it('leaves no digit of the numbering in any title of the real task set', () => {
  const titles = readFileSync(new URL('../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const rubric = (JSON.parse(line) as { rubric: string | { title: string }[] }).rubric;
      return (typeof rubric === 'string' ? (JSON.parse(rubric) as { title: string }[]) : rubric).map((c) => c.title);
    });
  expect(titles.length).toBe(1306);
  const left = titles.filter((t) => /^\s*\d/.test(judgeTitle(t)));
  expect(left).toEqual([]);
  // Each is its title from the first letter after the numbering.
  for (const t of titles) expect(t.endsWith(judgeTitle(t))).toBe(true);
});
