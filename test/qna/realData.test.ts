// The real task set, through both readers, against the facts its README states.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseQnaImport, type QnaTask } from '../../src/qna/index.js';
import { jsonlText, parquetBytes } from './fixtures.js';

let fromParquet: QnaTask[];
let fromJsonl: QnaTask[];
let parquetMs: number;

beforeAll(async () => {
  const started = performance.now();
  const parquet = await parseQnaImport(parquetBytes(), 'parquet');
  parquetMs = performance.now() - started;
  const jsonl = await parseQnaImport(new TextEncoder().encode(jsonlText()), 'jsonl');
  if (!parquet.ok) throw new Error(JSON.stringify(parquet.problems.slice(0, 5)));
  if (!jsonl.ok) throw new Error(JSON.stringify(jsonl.problems.slice(0, 5)));
  fromParquet = parquet.tasks;
  fromJsonl = jsonl.tasks;
});

const count = <T>(items: T[], key: (item: T) => string) =>
  items.reduce<Record<string, number>>((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

describe('real SWE-Atlas-QnA data', () => {
  it('the Parquet file and the JSON Lines file yield the same tasks', () => {
    expect(fromParquet).toEqual(fromJsonl);
  });

  it('holds 124 tasks with distinct ids', () => {
    expect(fromParquet).toHaveLength(124);
    expect(new Set(fromParquet.map((t) => t.id)).size).toBe(124);
  });

  it('holds 1,306 criteria: 1,220 positive and 86 negative, all must have', () => {
    const criteria = fromParquet.flatMap((t) => t.rubric);
    expect(criteria).toHaveLength(1306);
    expect(count(criteria, (c) => c.type)).toEqual({ positive: 1220, negative: 86 });
    expect(count(criteria, (c) => c.importance)).toEqual({ 'must have': 1306 });
  });

  it('has 5 to 26 criteria a task, median 10', () => {
    const sizes = fromParquet.map((t) => t.rubric.length).sort((a, b) => a - b);
    expect(sizes[0]).toBe(5);
    expect(sizes.at(-1)).toBe(26);
    expect(sizes[61]).toBe(10);
    expect(sizes[62]).toBe(10);
  });

  it('marks exactly two criteria scale-correction, both negative, in the grafana/k6 task', () => {
    const corrected = fromParquet.flatMap((t) =>
      t.rubric.filter((c) => c.change !== null).map((c) => ({ task: t, c })),
    );
    expect(corrected).toHaveLength(2);
    for (const { task, c } of corrected) {
      expect(task.id).toBe('6905333b74f22949d97baa22');
      expect(task.repositoryUrl).toBe('grafana/k6');
      expect(c.change).toBe('scale-correction');
      expect(c.type).toBe('negative');
      expect(c.originalTitle).toMatch(/Avoids/);
      expect(c.title).not.toMatch(/Avoids/);
    }
  });

  it('keeps original titles equal to titles on every unchanged criterion', () => {
    const unchanged = fromParquet.flatMap((t) => t.rubric).filter((c) => c.change === null);
    expect(unchanged).toHaveLength(1304);
    expect(unchanged.every((c) => c.originalTitle === c.title)).toBe(true);
  });

  it('spans 11 repositories and the README category counts', () => {
    expect(new Set(fromParquet.map((t) => t.repositoryUrl)).size).toBe(11);
    expect(count(fromParquet, (t) => t.category)).toEqual({
      'Architecture & system design': 44,
      'Root-cause analysis': 37,
      'Code Onboarding': 28,
      Security: 11,
      'API & library usage / integration': 4,
    });
  });

  it('parses the Parquet file in well under a second', () => {
    console.info(`parsed ${fromParquet.length} tasks from Parquet in ${parquetMs.toFixed(1)} ms`);
    expect(parquetMs).toBeLessThan(2000);
  });
});
