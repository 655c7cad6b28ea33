// Shared setup of the validator-accountability suites: a competition with SWE tasks and one QnA
// task, bearer validators, run batches, and every score read of a competition as one object.
import { expect } from 'vitest';
import { admin, type TestApp } from '../support/app.js';

export const P = 'a'.repeat(32);
export const N = 'b'.repeat(32);
export const QNA_ID = 'qna';
export const SWE_IDS = ['swe-a', 'swe-b', 'swe-c'];
export const TASK_IDS = [...SWE_IDS, QNA_ID];
export const JUDGE_VOTES = 3;

/** A judge configuration of JUDGE_VOTES votes (SPEC 12). */
export const JUDGE = {
  model: 'judge-a',
  reasoningEffort: 'high',
  votes: JUDGE_VOTES,
  temperature: 0,
  promptTemplate: 'Question: {question}\nAnswer ({answer_date}): {answer}\nCriterion: {criterion}',
  outputSchema: { type: 'object', properties: { verdict: { enum: ['YES', 'NO'] } }, required: ['verdict'] },
};

export const qna = {
  prompt: 'Where is the retry budget reset?',
  referenceAnswer: 'In resetBudget(), called by the scheduler.',
  repositoryUrl: 'acme/widgets',
  repositoryBaseCommit: 'f'.repeat(40),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric: [
    { id: P, type: 'positive', title: '1.1: names resetBudget', importance: 'must have' },
    { id: N, type: 'negative', title: '1.2: does not blame the client', importance: 'must have' },
  ],
};

export async function setupCompetition(t: TestApp, id = 'c', extra: Record<string, unknown> = {}): Promise<void> {
  const c = await t.call({
    method: 'PUT',
    url: `/v1/competitions/${id}`,
    headers: admin,
    payload: { name: 'Trust', judgeVotes: JUDGE_VOTES, ...extra },
  });
  expect(c.status).toBe(201);
  const tasks = [
    { id: SWE_IDS[0], type: 'swebench_verified', stage: 'evaluation', complexity: 'long' },
    { id: SWE_IDS[1], type: 'swebench_verified', stage: 'evaluation', complexity: 'short' },
    { id: SWE_IDS[2], type: 'swebench_verified', stage: 'screener_2' },
    { id: QNA_ID, type: 'swe_atlas_qna', stage: 'evaluation', qna },
  ];
  const res = await t.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: { tasks } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export interface Validator {
  id: string;
  headers: Record<string, string>;
}

export async function createValidators(t: TestApp, n: number): Promise<Validator[]> {
  const out: Validator[] = [];
  for (let i = 0; i < n; i++) {
    const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: `v${i}` } });
    out.push({ id: v.body.id, headers: { authorization: `Bearer ${v.body.apiKey}` } });
  }
  return out;
}

export async function postRuns(
  t: TestApp,
  headers: Record<string, string>,
  runs: object[],
  competition = 'c',
): Promise<void> {
  if (runs.length === 0) return;
  const res = await t.call({ method: 'POST', url: `/v1/competitions/${competition}/runs`, headers, payload: { runs } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const voteList = (yes: number) => Array.from({ length: JUDGE_VOTES }, (_, i) => ({ verdict: i < yes ? 'YES' : 'NO' }));

/** A generated run, as the property tests draw it. */
export interface RunSpec {
  task: number;
  baseline: boolean;
  miner: number;
  resolved: boolean;
  tokens: { input: number; cachedInput?: number; output: number } | null;
  /** YES votes on the positive and negative criteria (QnA task only). */
  votes: [number, number];
}

/** The API body of a generated run. */
export function runBody(runId: string, s: RunSpec): Record<string, unknown> {
  const taskId = TASK_IDS[s.task]!;
  const run: Record<string, unknown> = { runId, taskId, kind: s.baseline ? 'baseline' : 'miner', tokens: s.tokens };
  if (!s.baseline) run.minerHotkey = `miner-${s.miner}`;
  if (taskId === QNA_ID)
    run.rubricVotes = [
      { criterionId: P, votes: voteList(s.votes[0]) },
      { criterionId: N, votes: voteList(s.votes[1]) },
    ];
  else run.resolved = s.resolved;
  return run;
}

/** Every score read of a competition: leaderboard, weights, each task (admin view) and each ranked miner. */
export async function scoreReads(t: TestApp, competition = 'c'): Promise<Record<string, unknown>> {
  const get = async (url: string) => {
    const res = await t.call({ method: 'GET', url: `/v1/competitions/${competition}${url}`, headers: admin });
    return { status: res.status, body: res.body };
  };
  const reads: Record<string, unknown> = { leaderboard: await get('/leaderboard'), weights: await get('/weights') };
  for (const id of TASK_IDS) reads[`task ${id}`] = await get(`/tasks/${id}`);
  for (const m of (reads.leaderboard as { body: { miners: { hotkey: string }[] } }).body.miners) {
    reads[`miner ${m.hotkey}`] = await get(`/miners/${m.hotkey}`);
  }
  return reads;
}
