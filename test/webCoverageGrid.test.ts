// The coverage heatmap's grid (web/src/coverage/grid.ts): each cell is the API pair of its row's
// task and column's miner, the baseline first; the CSV carries every pair, quoted where needed.
import { describe, expect, it } from 'vitest';
import type { Coverage, CoveragePair } from '../web/src/api.js';
import { toCsv, toGrid } from '../web/src/coverage/grid.js';

const pair = (taskId: string, miner: string, have: number, planned = 5): CoveragePair => ({
  taskId,
  miner,
  planned,
  have,
  missing: Math.max(0, planned - have),
});

const coverage = (pairs: CoveragePair[]): Coverage => ({
  competitionId: 'c',
  stages: ['evaluation'],
  summary: { pairs: pairs.length, planned: 0, have: 0, missing: 0, complete: false },
  pairs,
  nextCursor: null,
});

describe('coverage grid', () => {
  it('rows by task id, columns the baseline then hotkeys, each cell its own pair', () => {
    const pairs = [
      pair('t2', 'baseline', 1),
      pair('t2', 'zed', 2),
      pair('t2', 'amy', 3),
      pair('t1', 'baseline', 4),
      pair('t1', 'amy', 5),
      pair('t1', 'zed', 0),
    ];
    const grid = toGrid(coverage(pairs));
    expect(grid.tasks).toEqual(['t1', 't2']);
    expect(grid.miners).toEqual(['baseline', 'amy', 'zed']);
    for (const p of pairs) expect(grid.at(grid.tasks.indexOf(p.taskId), grid.miners.indexOf(p.miner))).toBe(p);
  });

  it('a pair the API does not list is no cell, and outside the grid is nothing', () => {
    const grid = toGrid(coverage([pair('t1', 'baseline', 1), pair('t2', 'baseline', 1), pair('t2', 'amy', 1)]));
    expect(grid.at(0, 1)).toBeUndefined();
    // Past the last column is not the next row's first cell.
    expect(grid.at(0, 2)).toBeUndefined();
    expect(grid.at(-1, 0)).toBeUndefined();
    expect(grid.at(1, -1)).toBeUndefined();
  });

  it('CSV: a header, one line a pair, fields with a comma or quote quoted', () => {
    expect(toCsv([pair('t,1', 'a"b', 2, 3)])).toBe('taskId,miner,planned,have,missing\n"t,1","a""b",3,2,1\n');
  });
});
