// A small input document: two tasks, a baseline and a miner run, one excluded miner.
import type { InputDocument } from '../../src/snapshots/inputSchemas.js';

export const sample: InputDocument = {
  competition: {
    id: 'c',
    tokenWeights: { input: 1, cachedInput: 0.1, output: 3 },
    burnRatio: 0.25,
    judgeVotes: 5,
    finalStages: ['screener_2', 'evaluation'],
    miners: ['m2', 'm1'],
    excluded: { miners: ['m2'], validators: [] },
  },
  tasks: [
    { id: 't2', type: 'swebench_verified', stage: 'evaluation', complexity: 'long', plannedRuns: null },
    { id: 't1', type: 'swe_atlas_qna', stage: 'screener_2', complexity: null, plannedRuns: 3 },
  ],
  runs: [
    {
      runId: 'r2',
      taskId: 't1',
      kind: 'miner',
      minerHotkey: 'm1',
      resolved: true,
      tokens: { input: 5, cachedInput: null, output: 1 },
      validatorId: 'v',
    },
    {
      runId: 'r1',
      taskId: 't1',
      kind: 'baseline',
      minerHotkey: null,
      resolved: false,
      tokens: null,
      validatorId: null,
    },
  ],
};
