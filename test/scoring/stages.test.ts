import { describe, expect, it } from 'vitest';
import { DEFAULT_FINAL_STAGES, normalizeStages, parseStages, tasksInStages } from '../../src/scoring/stages.js';
import type { Stage } from '../../src/scoring/types.js';

describe('stages (SPEC 8)', () => {
  it('final stages default to screener_2 and evaluation', () => {
    expect(DEFAULT_FINAL_STAGES).toEqual(['screener_2', 'evaluation']);
  });

  it.each([
    [
      ['evaluation', 'screener_1'],
      ['screener_1', 'evaluation'],
    ],
    [[' Evaluation ', 'evaluation'], ['evaluation']],
    [[], []],
  ])('normalizes %o to the canonical order and without repeats: %o', (input, want) => {
    expect(normalizeStages(input)).toEqual(want);
  });

  it('rejects an unknown stage with null rather than dropping it', () => {
    expect(normalizeStages(['evaluation', 'final'])).toBeNull();
  });

  it.each([
    [undefined, ['screener_2', 'evaluation']],
    ['', ['screener_2', 'evaluation']],
    [' , ', ['screener_2', 'evaluation']],
    ['screener_1', ['screener_1']],
    ['evaluation,screener_2,', ['screener_2', 'evaluation']],
    ['nope', null],
  ])('parses ?stages=%s as %o, defaulting to the final stages', (query, want) => {
    expect(parseStages(query)).toEqual(want);
  });

  it('defaults to the competition’s own final stages when given', () => {
    expect(parseStages(null, ['evaluation'])).toEqual(['evaluation']);
  });

  it('keeps only tasks in the chosen stages', () => {
    const tasks: { id: string; stage: Stage }[] = [
      { id: 'a', stage: 'screener_1' },
      { id: 'b', stage: 'screener_2' },
      { id: 'c', stage: 'evaluation' },
    ];
    expect(tasksInStages(tasks, ['screener_2', 'evaluation']).map((t) => t.id)).toEqual(['b', 'c']);
    expect(tasksInStages(tasks, [])).toEqual([]);
  });
});
