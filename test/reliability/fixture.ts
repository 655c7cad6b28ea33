// A small competition (SWE-bench tasks of every complexity and stage, one QnA task with a rubric,
// an excluded miner) and a seeded generator of valid runs for it. The reference app scores the
// same runs from scratch in memory, to compare a server's state against.
import { admin, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import type { Rng } from '../support/prng.js';
import type { Json } from '../support/json.js';

export const COMPETITION = 'rel';
export const QNA_TASK = 'qna-1';
export const CRITERIA = ['0123456789abcdef0123456789abcdef', 'fedcba9876543210fedcba9876543210'] as const;
export const HOTKEYS = ['hk-a', 'hk-b', 'hk-c', 'hk-d', 'hk-e', 'hk-x'] as const;
const EXCLUDED_HOTKEY = 'hk-x';

const qna = {
  prompt: 'Where is the retry policy configured?',
  referenceAnswer: 'In config/retry.ts, read at startup.',
  repositoryUrl: 'acme/widgets',
  repositoryBaseCommit: '0123456789abcdef0123456789abcdef01234567',
  language: 'ts',
  category: 'architecture',
  dockerImage: 'acme/widgets:qna',
  rubric: [
    { id: CRITERIA[0], title: 'Names config/retry.ts', type: 'positive hli verifier', importance: 'must have' },
    { id: CRITERIA[1], title: 'Claims retries are hard-coded', type: 'negative hli verifier', importance: 'must have' },
  ],
};

export const TASKS = [
  { id: 'sw-1', type: 'swebench_verified', complexity: 'short' },
  { id: 'sw-2', type: 'swebench_verified', complexity: 'short', plannedRuns: 5 },
  { id: 'sw-3', type: 'swebench_verified', complexity: 'medium' },
  { id: 'sw-4', type: 'swebench_verified', complexity: 'long', stage: 'screener_2' },
  { id: 'sw-5', type: 'swebench_verified' },
  { id: 'sw-6', type: 'swebench_verified', complexity: 'medium', stage: 'screener_1' },
  { id: QNA_TASK, type: 'swe_atlas_qna', complexity: 'long', qna },
];

export type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Json }>;

/** Creates the competition, its tasks and the excluded miner through the API. */
export async function setupCompetition(call: Call, id = COMPETITION): Promise<void> {
  const steps: [string, string, unknown][] = [
    ['PUT', `/v1/competitions/${id}`, { name: 'Reliability', judgeVotes: 3, burnRatio: 0.1 }],
    ['PUT', `/v1/competitions/${id}/tasks`, { tasks: TASKS }],
    ['PUT', `/v1/competitions/${id}/miners/${EXCLUDED_HOTKEY}`, { excluded: true, reason: 'copying' }],
  ];
  for (const [method, path, body] of steps) {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

export interface RunBody {
  runId: string;
  taskId: string;
  kind: 'baseline' | 'miner';
  minerHotkey?: string;
  [field: string]: unknown;
}

/** A valid run with random content; `variant` changes its token counts (a conflicting twin). */
export function makeRun(rng: Rng, runId: string, variant = 0): RunBody {
  const task = rng.pick(TASKS);
  const run: RunBody = { runId, taskId: task.id, kind: rng.chance(0.3) ? 'baseline' : 'miner' };
  if (run.kind === 'miner') run.minerHotkey = rng.pick(HOTKEYS);
  if (rng.chance(0.5)) run.attemptNo = rng.int(0, 4);
  if (task.type === 'swe_atlas_qna' && rng.chance(0.8)) {
    run.rubricVotes = CRITERIA.map((criterionId) => ({
      criterionId,
      votes: [0, 1, 2].map(() => ({
        verdict: rng.chance(0.6) ? 'YES' : 'NO',
        ...(rng.chance(0.3) ? { reason: 'r' } : {}),
      })),
    }));
  } else {
    run.resolved = rng.chance(0.55);
  }
  const tokens = rng.next();
  if (tokens < 0.08) run.tokens = null;
  else if (tokens < 0.95) {
    run.tokens = {
      input: rng.int(0, 40_000),
      output: rng.int(0, 4_000),
      ...(rng.chance(0.6) ? { cachedInput: rng.int(0, 90_000) } : {}),
    };
  }
  if (rng.chance(0.5)) run.timeTakenSeconds = Math.round(rng.next() * 1e6) / 1e3;
  if (rng.chance(0.5)) run.agentSteps = rng.int(0, 300);
  if (variant !== 0) run.tokens = { input: 1000 + variant, output: variant };
  return run;
}

/** The same competition in a fresh in-memory app, fed exactly the runs it is given. */
export class Reference {
  private constructor(readonly t: TestApp) {}

  static async create(): Promise<Reference> {
    const t = await testApp();
    await setupCompetition(async (method, url, payload) =>
      t.call({ method: method, url, headers: admin, payload: payload as object }),
    );
    return new Reference(t);
  }

  async add(runs: RunBody[]): Promise<void> {
    for (let i = 0; i < runs.length; i += 5000) {
      const res = await this.t.call({
        method: 'POST',
        url: `/v1/competitions/${COMPETITION}/runs`,
        headers: admin,
        payload: { runs: runs.slice(i, i + 5000) },
      });
      if (res.status !== 200) throw new Error(`reference rejected runs: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  async get(path: string): Promise<Json> {
    const res = await this.t.call({ method: 'GET', url: path });
    if (res.status !== 200) throw new Error(`reference GET ${path}: ${res.status}`);
    return res.body;
  }

  rows(table: string, omit: readonly string[]) {
    return this.t.rows(table, omit);
  }

  close(): Promise<void> {
    return this.t.close();
  }
}

/** Score reads compared between a server and the reference. */
export const SCORE_PATHS = [
  `/v1/competitions/${COMPETITION}/leaderboard`,
  `/v1/competitions/${COMPETITION}/weights`,
  `/v1/competitions/${COMPETITION}/leaderboard?stages=screener_1,screener_2,evaluation`,
  `/v1/competitions/${COMPETITION}/tasks/${QNA_TASK}`,
];

/** Tables compared row for row between a server's database and the reference's. */
export const COMPARED_TABLES: [string, string[]][] = [
  // PostgreSQL hands out run sequence numbers at insert and never takes them back: a batch that
  // rolled back (or was cut by a crash) leaves a gap the reference does not have.
  ['runs', ['created_at', 'validator_id', ...(TEST_ENGINE === 'postgres' ? ['seq'] : [])]],
  ['miner_tasks', []],
  ['tasks', []],
  ['task_criteria', []],
  ['miners', []],
];
