// The plan of a run batch or a deletion (src/db/plan/runBatch.ts) with its parts: which runs
// count, the miners they make known, per-task run counts, criterion counts
// (src/db/plan/criterionSums.ts) and the aggregates' per-pair deltas (src/db/plan/aggregateDeltas.ts),
// and the 2^53 bound's test (src/db/plan/tokenSums.ts).
import { describe, expect, it } from 'vitest';
import { aggregateDeltas, deltaKey } from '../../../src/db/plan/aggregateDeltas.js';
import { criterionSums } from '../../../src/db/plan/criterionSums.js';
import { planRunChange } from '../../../src/db/plan/runBatch.js';
import { MAX_EXACT, passesBound, tooLarge } from '../../../src/db/plan/tokenSums.js';
import type { RunRecord } from '../../../src/db/rows.js';
import { DEFAULT_TOKEN_WEIGHTS } from '../../../src/scoring/weightedTokens.js';

const w = DEFAULT_TOKEN_WEIGHTS;
const run = (over: Partial<RunRecord>): RunRecord => ({
  competitionId: 'c',
  runId: 'r',
  taskId: 'T1',
  kind: 'miner',
  minerHotkey: 'alice',
  validatorId: 'v1',
  attemptNo: null,
  resolved: true,
  tokens: { input: 100, cachedInput: 10, output: 20 },
  timeTakenSeconds: null,
  agentSteps: null,
  rubricVotes: null,
  criteria: null,
  ...over,
});

describe('planRunChange', () => {
  it("leaves out excluded validators' and stale runs from everything but the task run counts", () => {
    const plan = planRunChange(
      [
        run({ runId: 'a' }),
        run({ runId: 'b', validatorId: 'bad', minerHotkey: 'bob' }),
        run({ runId: 'c', judgeDigest: 'old', minerHotkey: 'carol', taskId: 'T2' }),
        run({ runId: 'd', kind: 'baseline', minerHotkey: null, taskId: 'T2' }),
      ],
      1,
      w,
      new Set(['bad']),
      { digest: 'new', qnaTasks: new Set() },
    );
    expect(plan.counted.map((r) => r.runId)).toEqual(['a', 'd']);
    expect(plan.miners).toEqual(['alice']);
    expect([...plan.perTask]).toEqual([
      ['T1', 2],
      ['T2', 2],
    ]);
    expect([...plan.pairs.keys()]).toEqual([
      deltaKey({ kind: 'miner', taskId: 'T1', minerHotkey: 'alice' }),
      deltaKey({ kind: 'baseline', taskId: 'T2', minerHotkey: null }),
    ]);
  });

  it('takes a deleted run out with the opposite sign', () => {
    const r = run({ criteria: [{ criterionId: 'k', yes: 3, no: 0, verdict: 'YES', met: true, split: false }] });
    const plan = planRunChange([r], -1, w, new Set(), null);
    expect([...plan.perTask]).toEqual([['T1', -1]]);
    expect(plan.criteria).toEqual([{ taskId: 'T1', id: 'k', graded: -1, met: -1, split: 0 }]);
    expect([...plan.pairs.values()][0]).toMatchObject({ runs: -1, resolved: -1, tokens: { count: -1, input: -100 } });
  });
});

describe('aggregateDeltas', () => {
  it('sums per pair, counting tokens only of runs that enter the mean', () => {
    const sums = aggregateDeltas(
      [
        run({}),
        run({ resolved: false, tokens: { input: 1, cachedInput: null, output: 2 } }),
        run({ kind: 'baseline', minerHotkey: null, resolved: false }),
      ],
      w,
      1,
    );
    const [miner, baseline] = [...sums.values()];
    expect(miner).toMatchObject({ runs: 2, resolved: 1, tokens: { count: 2, input: 101, cached: 10, output: 22 } });
    // An unresolved baseline run is counted but enters no token mean (SPEC 3).
    expect(baseline).toMatchObject({ runs: 1, resolved: 0, tokens: { count: 0, input: 0 } });
  });

  it('keeps one delta per (kind, task, miner), keyed and ordered by the first run of each, however interleaved', () => {
    const runs = [
      run({ runId: '1', taskId: 'T1', minerHotkey: 'alice' }),
      run({ runId: '2', taskId: 'T2', minerHotkey: 'alice' }),
      run({ runId: '3', taskId: 'T1', minerHotkey: 'bob' }),
      run({ runId: '4', taskId: 'T1', kind: 'baseline', minerHotkey: null }),
      run({ runId: '5', taskId: 'T1', minerHotkey: 'alice' }),
      run({ runId: '6', taskId: 'T2', kind: 'baseline', minerHotkey: null }),
      run({ runId: '7', taskId: 'T1', kind: 'baseline', minerHotkey: null }),
      run({ runId: '8', taskId: 'T2', minerHotkey: 'alice' }),
    ];
    const sums = aggregateDeltas(runs, w, 1);
    expect([...sums].map(([key, s]) => [key, (s.d as RunRecord).runId, s.runs])).toEqual([
      [deltaKey(runs[0]!), '1', 2],
      [deltaKey(runs[1]!), '2', 2],
      [deltaKey(runs[2]!), '3', 1],
      [deltaKey(runs[3]!), '4', 2],
      [deltaKey(runs[5]!), '6', 1],
    ]);
  });
});

describe('criterionSums', () => {
  it('counts graded, met and split per (task, criterion), in the order first graded', () => {
    const sums = criterionSums([
      { taskId: 'T1', criteria: [{ criterionId: 'b', met: true, split: true }] },
      { taskId: 'T1', criteria: [{ criterionId: 'a', met: false, split: false }] },
      { taskId: 'T1', criteria: [{ criterionId: 'b', met: false, split: true }] },
      { taskId: 'T2', criteria: null },
    ]);
    expect(sums).toEqual([
      { taskId: 'T1', id: 'b', graded: 2, met: 1, split: 2 },
      { taskId: 'T1', id: 'a', graded: 1, met: 0, split: 0 },
    ]);
  });

  it('keeps the same criterion id of two tasks apart, each in the order first graded', () => {
    const sums = criterionSums(
      [
        { taskId: 'T1', criteria: [{ criterionId: 'a', met: true, split: false }] },
        { taskId: 'T2', criteria: [{ criterionId: 'a', met: false, split: true }] },
        { taskId: 'T1', criteria: [{ criterionId: 'b', met: true, split: false }] },
        { taskId: 'T2', criteria: [{ criterionId: 'a', met: true, split: false }] },
      ],
      -1,
    );
    expect(sums).toEqual([
      { taskId: 'T1', id: 'a', graded: -1, met: -1, split: 0 },
      { taskId: 'T2', id: 'a', graded: -2, met: -1, split: -1 },
      { taskId: 'T1', id: 'b', graded: -1, met: -1, split: 0 },
    ]);
  });
});

describe('the 2^53 bound', () => {
  it('passes only past MAX_EXACT, on any of the three sums', () => {
    expect(passesBound({ count: 1, input: MAX_EXACT, cached: 0, output: MAX_EXACT })).toBe(false);
    expect(passesBound({ count: 1, input: 0, cached: MAX_EXACT + 2, output: 0 })).toBe(true);
  });

  it('names the pair whose sums would pass it, as a 422', () => {
    const e = tooLarge({ kind: 'miner', taskId: 'T1', minerHotkey: 'alice' });
    expect(e.kind).toBe('unprocessable');
    expect(e.detail).toContain('miner alice on task T1');
  });
});
