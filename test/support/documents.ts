// Input documents of a chosen size for POST /v1/score: `miners` miners (ids m000000…), `tasks`
// evaluation tasks (t0000…), a baseline run on each task and `runsEach` runs of each of the first
// `runners` miners on each task.
import { serializeDocument } from '../../src/snapshots/inputDocument.js';
import type { InputDocument, InputRun } from '../../src/snapshots/inputSchemas.js';

export interface DocumentSize {
  miners: number;
  tasks: number;
  /** How many miners have runs (the rest are listed only). Default: all. */
  runners?: number;
  runsEach?: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function documentOf(size: DocumentSize, hotkeys?: readonly string[]): InputDocument {
  const miners = hotkeys ? [...hotkeys] : Array.from({ length: size.miners }, (_, i) => `m${pad(i, 6)}`);
  const tasks = Array.from({ length: size.tasks }, (_, i) => `t${pad(i, 4)}`);
  const runs: InputRun[] = [];
  const tokens = (k: number) => ({ input: 1000 + k, cachedInput: null, output: 100 + (k % 37) });
  for (const [ti, taskId] of tasks.entries()) {
    runs.push({
      runId: `b-${taskId}`,
      taskId,
      kind: 'baseline',
      minerHotkey: null,
      resolved: true,
      tokens: tokens(ti),
      validatorId: null,
    });
    for (const [mi, hotkey] of miners.slice(0, size.runners ?? miners.length).entries())
      for (let r = 0; r < (size.runsEach ?? 1); r++)
        runs.push({
          runId: `r-${taskId}-${pad(mi, 6)}-${r}`,
          taskId,
          kind: 'miner',
          minerHotkey: hotkey,
          resolved: (mi + ti + r) % 3 !== 0,
          tokens: tokens(mi * 7 + ti + r),
          validatorId: 'v1',
        });
  }
  return {
    competition: {
      id: 'c',
      tokenWeights: { input: 1, cachedInput: 0.1, output: 3 },
      burnRatio: 0.1,
      judgeVotes: 5,
      finalStages: ['evaluation'],
      miners,
      excluded: { miners: [], validators: [] },
    },
    tasks: tasks.map((id) => ({
      id,
      type: 'swebench_verified',
      stage: 'evaluation',
      complexity: 'short',
      plannedRuns: null,
    })),
    runs,
  };
}

/** The document's NDJSON text. */
export const documentText = (size: DocumentSize, hotkeys?: readonly string[]) =>
  serializeDocument(documentOf(size, hotkeys));
