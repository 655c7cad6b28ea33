// The task upsert decisions both engines run (src/db/plan/tasksUpsert.ts): insert, update,
// unchanged, a task sent twice, kept content, and the 409 of a type or rubric change on a task
// with runs, which names every such task.
import { describe, expect, it } from 'vitest';
import { planTasksUpsert, TasksHaveRuns, type StoredTask } from '../../../src/db/plan/tasksUpsert.js';
import type { CriterionRecord, TaskRecord } from '../../../src/db/rows.js';

const qna = {
  prompt: 'p',
  referenceAnswer: 'r',
  repositoryUrl: 'o/n',
  repositoryBaseCommit: 'abc',
  language: 'ts',
  category: 'c',
  dockerImage: 'img',
};
const criterion = (id: string): CriterionRecord => ({
  id,
  title: `t ${id}`,
  type: 'positive',
  importance: 'must',
  originalTitle: `o ${id}`,
  change: null,
});
const sent = (id: string, over: Partial<TaskRecord> = {}): TaskRecord => ({
  id,
  type: 'swe_atlas_qna',
  stage: 'evaluation',
  complexity: null,
  plannedRuns: null,
  qna,
  rubric: [criterion('c1')],
  ...over,
});
const stored = (over: Partial<StoredTask> = {}): StoredTask => ({
  type: 'swe_atlas_qna',
  stage: 'evaluation',
  complexity: null,
  plannedRuns: null,
  qna,
  rubric: [criterion('c1')],
  runCount: 0,
  ...over,
});

describe('planTasksUpsert', () => {
  it('inserts a new task with its rubric, leaves an equal one unchanged, updates a changed one', () => {
    const plan = planTasksUpsert(
      new Map([
        ['same', stored()],
        ['moved', stored()],
      ]),
      [sent('new'), sent('same'), sent('moved', { stage: 'screener_1' })],
    );
    expect(plan.counts).toEqual({ imported: 1, updated: 1, unchanged: 1 });
    expect(plan.writes.map((w) => [w.id, w.inserted, w.rubricWritten, w.stage])).toEqual([
      ['moved', false, false, 'screener_1'],
      ['new', true, true, 'evaluation'],
    ]);
  });

  it('rewrites the rubric only when it changed', () => {
    const plan = planTasksUpsert(new Map([['a', stored()]]), [sent('a', { rubric: [criterion('c2')] })]);
    expect(plan.writes).toMatchObject([{ id: 'a', rubricWritten: true, rubric: [{ id: 'c2' }] }]);
  });

  it('decides a task sent twice on its first version, and writes it once', () => {
    const plan = planTasksUpsert(new Map(), [sent('a'), sent('a'), sent('a', { plannedRuns: 3 })]);
    expect(plan.counts).toEqual({ imported: 1, updated: 1, unchanged: 1 });
    expect(plan.writes).toMatchObject([{ id: 'a', inserted: true, plannedRuns: 3 }]);
  });

  it('keeps the stored content of a task sent without it (same type only)', () => {
    const plan = planTasksUpsert(new Map([['a', stored({ runCount: 2 })]]), [
      sent('a', { keepContent: true, qna: null, rubric: [], plannedRuns: 5 }),
    ]);
    expect(plan.writes).toMatchObject([{ id: 'a', qna, rubric: [{ id: 'c1' }], plannedRuns: 5, rubricWritten: false }]);
  });

  it('refuses a type or rubric change on tasks with runs, naming each, and plans nothing', () => {
    const withRuns = new Map([
      ['a', stored({ runCount: 1 })],
      ['b', stored({ runCount: 1 })],
      ['c', stored({ runCount: 1 })],
    ]);
    const attempt = () =>
      planTasksUpsert(withRuns, [
        sent('a', { rubric: [] }),
        sent('b', { type: 'swebench_verified' }),
        sent('c', { stage: 'screener_1' }),
      ]);
    expect(attempt).toThrow(TasksHaveRuns);
    try {
      attempt();
    } catch (e) {
      expect((e as TasksHaveRuns).ids).toEqual(['a', 'b']);
    }
  });
});
