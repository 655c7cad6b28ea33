import { describe, expect, it } from 'vitest';
import { scoreCompetition } from '../../src/scoring/scoreCompetition.js';
import { competition, runs, type ArrayInput } from './fixtures.js';

// SPEC 9: one main task (x = 8, s = r = 1) and one hard task (x = 1, y = 3, n = 5, h = 0.5).
const spec9 = (): ArrayInput =>
  competition({
    tasks: [
      { id: 'main', complexity: 'short' },
      { id: 'hard', complexity: 'long' },
      { id: 'gate', stage: 'screener_1' },
    ],
    runs: [
      ...runs('main', 'baseline', 'YYYYYYYY', 100),
      ...runs('main', 'a', 'YYYYYYYY', 50),
      ...runs('hard', 'baseline', 'YNNNN', 100),
      ...runs('hard', 'a', 'YYYNN', 100),
      ...runs('gate', 'baseline', 'NN'),
      ...runs('gate', 'a', 'YY'),
      ...runs('gate', 'b', 'YY'),
    ],
  });

describe('scoreCompetition (SPEC 3–8)', () => {
  it('reproduces the SPEC 9 miner example: S_M = 1, B_H = 0.25, S_R = 1.25, S_N = 0.5', () => {
    const [a] = scoreCompetition(spec9()).miners;
    expect(a).toMatchObject({
      hotkey: 'a',
      rank: 1,
      mainScore: 1,
      hardBoost: 0.25,
      rawTotal: 1.25,
      normalizedScore: 0.5,
    });
    expect(a?.taskCounts).toEqual({ main: 1, hardBoost: 1, excluded: 0 });
    expect(a?.tasks.map((t) => [t.taskId, t.zone, t.score, t.weight])).toEqual([
      ['hard', 'bonus', 0.5, null],
      ['main', 'maintain', 1, 2],
    ]);
  });

  it('only tasks in the chosen stages and their runs count; scored tasks come sorted by id', () => {
    const scores = scoreCompetition(spec9());
    expect(scores.stages).toEqual(['screener_2', 'evaluation']);
    expect(scores.miners.map((m) => m.hotkey)).toEqual(['a']); // b ran only the screener_1 task
    expect(scores.miners[0]).toMatchObject({ runs: 13, resolvedRuns: 11 });
    expect(scores.baseline).toEqual({ runs: 13, resolved: 9, resolveRate: 9 / 13 });
  });

  it('a group score is absent for a group with no scored task; unlabeled tasks enter no group', () => {
    const input = spec9();
    input.stages = ['screener_1', 'evaluation'];
    const a = scoreCompetition(input).miners.find((m) => m.hotkey === 'a');
    // short: the main task alone, S_N = (2·1 + 1)/7; long: the hard task alone, B_H = 0.5.
    expect(a?.groupScores).toEqual({ short: 3 / 7, long: 2 / 7 });
    expect(a?.taskCounts).toEqual({ main: 1, hardBoost: 2, excluded: 0 });
  });

  it('miners marked excluded are listed with no rank, score, group, task or weight', () => {
    const input = spec9();
    input.miners = [{ hotkey: 'a', excluded: true }];
    const { miners, weights } = scoreCompetition(input);
    expect(miners).toEqual([
      {
        hotkey: 'a',
        excluded: true,
        rank: null,
        normalizedScore: null,
        rawTotal: null,
        mainScore: null,
        hardBoost: null,
        taskCounts: { main: 0, hardBoost: 0, excluded: 0 },
        groupScores: {},
        runs: 0,
        resolvedRuns: 0,
        resolveRate: null,
        incentive: { rawWeight: 0, finalWeight: 0 },
        tasks: [],
      },
    ]);
    expect(weights.finalWeights).toEqual({});
    expect(weights.burnWeight).toBe(1);
  });

  it('ranks the leaderboard by S_N, shares ranks on ties and lists unscored miners last', () => {
    const input = competition({
      tasks: [{ id: 't1' }, { id: 't2' }],
      runs: [
        ...runs('t1', 'baseline', 'YYYYY'),
        ...runs('t1', 'c', 'YYYYY'),
        ...runs('t1', 'b', 'YYYYY'),
        ...runs('t1', 'a', 'NNNNN'),
        ...runs('t2', 'd', 'YYYYY'), // t2 has no baseline run yet: d has nothing scored
      ],
      miners: [{ hotkey: 'e', excluded: false }],
    });
    const scores = scoreCompetition(input);
    expect(scores.miners.map((m) => [m.hotkey, m.rank, m.normalizedScore])).toEqual([
      ['b', 1, 1 / 7],
      ['c', 1, 1 / 7],
      ['a', 3, -1], // penalty: s = −4
      ['d', null, null],
      ['e', null, null],
    ]);
    // No labeled task: one `overall` element, decided by S_N and split between the tied pair.
    expect(scores.weights.layers[0]?.elements).toEqual([
      { subset: ['overall'], winners: ['b', 'c'], winningScore: 1 / 7 },
    ]);
    expect(scores.weights.finalWeights).toEqual({ a: 0, b: 0.5, c: 0.5 });
    expect(scores.miners[3]?.taskCounts).toEqual({ main: 0, hardBoost: 0, excluded: 1 });
    expect(scores.miners[3]?.resolveRate).toBe(1);
    expect(scores.miners[4]?.resolveRate).toBeNull();
  });

  it('each miner carries its share of the weights; hotkeys only in the runs take part', () => {
    const input = spec9();
    input.burnRatio = 0.2;
    const { miners, weights } = scoreCompetition(input);
    expect(weights.groups).toEqual(['short', 'long']);
    expect(weights.rawWeights.a).toBeCloseTo(1, 12);
    expect(miners[0]?.incentive.rawWeight).toBeCloseTo(1, 12);
    expect(miners[0]?.incentive.finalWeight).toBeCloseTo(0.8, 12);
    expect(weights.burnWeight).toBeCloseTo(0.2, 12);
  });

  it('a repeated (task, miner) entry is scored as the sum of both', () => {
    const input = competition({
      tasks: [{ id: 't' }],
      runs: [...runs('t', 'baseline', 'YYYNN'), ...runs('t', 'a', 'YYYNN')],
    });
    const single = scoreCompetition(input).miners[0]?.tasks;
    const entry = input.minerTasks[0];
    if (!entry) throw new Error('fixture');
    input.minerTasks = [
      { ...entry, runs: 2, resolved: 2, tokenSum: 200, tokenCount: 2 },
      { ...entry, runs: 3, resolved: 1, tokenSum: 300, tokenCount: 3 },
    ];
    expect(scoreCompetition(input).miners[0]?.tasks).toEqual(single);
  });

  it('entries of unknown tasks and entries without runs are ignored', () => {
    const input = spec9();
    input.minerTasks.push({ taskId: 'ghost', hotkey: 'z', runs: 3, resolved: 3, tokenSum: 3, tokenCount: 3 });
    input.minerTasks.push({ taskId: 'main', hotkey: 'y', runs: 0, resolved: 0, tokenSum: 0, tokenCount: 0 });
    expect(scoreCompetition(input).miners.map((m) => m.hotkey)).toEqual(['a']);
  });

  it('empty input: no miner, null baseline rate, burn weight 1 (the null rule)', () => {
    const scores = scoreCompetition({ tasks: [], miners: [], minerTasks: [], stages: ['evaluation'], burnRatio: 0 });
    expect(scores.miners).toEqual([]);
    expect(scores.baseline).toEqual({ runs: 0, resolved: 0, resolveRate: null });
    expect(scores.weights).toMatchObject({ groups: [], rawWeights: {}, finalWeights: {}, burnWeight: 1 });
  });
});
