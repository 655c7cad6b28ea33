// The walk-through every generated client makes (test/e2e/generatedClients.test.ts): the same
// tasks and runs, so each flow's reads can be checked against one set of expectations.

export const TASKS: { id: string; type: 'swebench_verified'; complexity: 'short' | 'long' }[] = [
  { id: 'short-1', type: 'swebench_verified', complexity: 'short' },
  { id: 'long-1', type: 'swebench_verified', complexity: 'long' },
];

type Tokens = { input: number; cachedInput: number; output: number };
type SampleRun =
  | { runId: string; taskId: string; kind: 'baseline'; resolved: boolean; tokens: Tokens }
  | { runId: string; taskId: string; kind: 'miner'; minerHotkey: string; resolved: boolean; tokens: Tokens };

/**
 * Per task: three resolved baseline runs, and three runs of alice (5,000 input tokens) and of bob
 * (20,000), two of three resolved: alice leads on tokens at the same resolve rate.
 */
export function sampleRuns(): SampleRun[] {
  const tokens = (n: number) => ({ input: n, cachedInput: 0, output: Math.round(n / 10) });
  const runs: SampleRun[] = [];
  for (const { id: taskId } of TASKS) {
    for (let i = 0; i < 3; i++)
      runs.push({ runId: `${taskId}-b${i}`, taskId, kind: 'baseline', resolved: true, tokens: tokens(10_000) });
    for (const [hotkey, scale] of [
      ['alice', 5000],
      ['bob', 20_000],
    ] as const) {
      for (let i = 0; i < 3; i++)
        runs.push({
          runId: `${taskId}-${hotkey}${i}`,
          taskId,
          kind: 'miner',
          minerHotkey: hotkey,
          resolved: i < 2,
          tokens: tokens(scale),
        });
    }
  }
  return runs;
}

/** What a flow returns, read by the test's assertions. */
export interface FlowResult {
  posted: unknown;
  /** The status of a batch that changes a stored run: 409. */
  conflict: number;
  leaderboard: { miners: { hotkey: string }[] };
  miner: { tasks: { taskId: string }[] };
  task: { miners: unknown[] };
  weights: { finalWeights: Partial<Record<string, number>> };
  /** The /metrics body as the client hands it over: text. */
  metrics: unknown;
  /** The backup's first 16 bytes: a binary body read as bytes, not as text or JSON. */
  backup: Uint8Array;
  /** The base URL the client uses when given none: '' (the page's origin), never `/` (`//v1/…`). */
  defaultBaseUrl?: string;
  /** The tasks as CSV, where the flow exports them. */
  exported?: string;
  /** What a generator gets wrong that the document cannot fix, kept so a change shows (docs/clients.md). */
  pinned?: Record<string, unknown>;
}
