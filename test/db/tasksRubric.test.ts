// The rubric writes of tasksRepo.upsertMany (prepared statements): every field stored as sent, in
// rubric order; a rewrite replaces the whole rubric and starts its grading counts afresh; a task
// whose rubric is unchanged keeps its rows. Real SQLite through the real migrations.
import { beforeEach, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/client.js';
import { competitionsRepo } from '../../src/db/competitions.js';
import { tasksRepo, type CriterionRecord, type TaskRecord } from '../../src/db/tasks.js';

let db: Db;
let repo: ReturnType<typeof tasksRepo>;
const qna = {
  prompt: 'p',
  referenceAnswer: 'r',
  repositoryUrl: 'o/n',
  repositoryBaseCommit: 'abc',
  language: 'ts',
  category: 'c',
  dockerImage: 'img',
};
const task = (id: string, rubric: CriterionRecord[]): TaskRecord => ({
  id,
  type: 'swe_atlas_qna',
  stage: 'evaluation',
  complexity: null,
  plannedRuns: null,
  qna,
  rubric,
});
const criterion = (id: string, change: string | null = null): CriterionRecord => ({
  id,
  title: `title of ${id}`,
  type: id.startsWith('n') ? 'negative' : 'positive',
  importance: 'must have',
  originalTitle: `original ${id}`,
  change,
});
const stored = (taskId: string) =>
  repo.criteria('c', taskId).map(({ position, id, title, type, importance, originalTitle, change, graded }) => ({
    position,
    id,
    title,
    type,
    importance,
    originalTitle,
    change,
    graded,
  }));

beforeEach(() => {
  db = openDatabase(':memory:');
  competitionsRepo(db).upsert('c', { name: 'c' });
  repo = tasksRepo(db);
});

it('stores each criterion as sent, in rubric order, for every task of the batch', () => {
  const rubric = [criterion('p1', 'reworded'), criterion('n1'), criterion('p2')];
  expect(repo.upsertMany('c', [task('a', rubric), task('b', rubric.slice(1))])).toEqual({
    imported: 2,
    updated: 0,
    unchanged: 0,
  });
  expect(stored('a')).toEqual(rubric.map((c, position) => ({ position, ...c, graded: 0 })));
  expect(stored('b').map((c) => c.id)).toEqual(['n1', 'p2']);
});

it('a rubric rewrite replaces the whole rubric and starts its grading counts afresh', () => {
  repo.upsertMany('c', [task('a', [criterion('p1'), criterion('p2'), criterion('n1')]), task('b', [criterion('p1')])]);
  db.$client.prepare("UPDATE task_criteria SET graded = 5, met = 3 WHERE task_id = 'a' OR task_id = 'b'").run();
  expect(repo.upsertMany('c', [task('a', [criterion('n2', 'negated')]), task('b', [criterion('p1')])])).toEqual({
    imported: 0,
    updated: 1,
    unchanged: 1,
  });
  expect(stored('a')).toEqual([{ position: 0, ...criterion('n2', 'negated'), graded: 0 }]);
  expect(stored('b')).toEqual([{ position: 0, ...criterion('p1'), graded: 5 }]); // unchanged: kept
});
