// One turn of a validator, step by step as docs/VALIDATING.md and docs/VALIDATING-CHAIN.md say:
// heartbeat, the judge, what still needs running (coverage), running it, posting the results in
// batches that survive retries, reading the progress, then the weights on chain from a verified
// snapshot. test/e2e/validatorExample.test.ts runs it against a real server.
//
// Inside a clone of this repository, after `npm ci`:
//
//   SCORING_URL=https://scores.example.org COMPETITION=sn-main \
//   HOTKEY_FILE=~/.bittensor/wallets/validator/hotkeys/default \
//   TASKS_FILE=tasks.jsonl STATE_FILE=pending.jsonl NETUID=7 \
//   node --import tsx docs/examples/validator.ts
//
// TASKS_FILE is the SWE-Atlas-QnA-AA file the operator imported (JSON Lines): the server does not
// give validators the criteria's ids and titles. STATE_FILE keeps each finished run, its runId made
// once, until the server has acknowledged it: a turn that dies mid-post resends it next time, as a
// duplicate if it was stored. A run the server refuses for what it says (a task it does not hold, votes
// that do not fit the rubric, a runId stored with other content: 400, 404, 409, 422) is never resent
// as it is: it goes to REJECTED_FILE with the server's answer, for you to look at, and the rest of its
// batch is sent again. `runOnce` stands in for your agent and judge: replace it.
//
// Weights are handed on only from a snapshot whose signature checks against the operator's
// snapshot-signing key as you keep it in SNAPSHOT_KEY_FILE (best: the operator gives it to you; if
// the file is missing, the first turn takes the server's and keeps it, trust on first use), and
// only for your subnet, NETUID. A server that starts signing with another key gets no weights set
// until you have checked the new key with the operator and replaced the file.
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { components } from '../../src/client/index.js';
import { createSignedScoringClient, keypairFromSeed } from '../../src/client/sign.js';

type Run = components['schemas']['RunResultInput'];
type Criterion = { id: string; title: string };

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};
const BASE = env('SCORING_URL').replace(/\/+$/, '');
const COMPETITION = env('COMPETITION');
const VERSION = env('VALIDATOR_VERSION', '1.0.0'); // your validator's own version, semver
const STATE_FILE = env('STATE_FILE', 'pending.jsonl');
const REJECTED_FILE = env('REJECTED_FILE', 'rejected.jsonl');
const SNAPSHOT_KEY_FILE = env('SNAPSHOT_KEY_FILE', 'snapshot-key.pem');
const NETUID = Number(env('NETUID')); // the subnet you set weights on
if (!Number.isInteger(NETUID) || NETUID < 0)
  throw new Error(`NETUID must be a subnet number, not ${process.env.NETUID}`);
const MAX_RUNS = 5_000; // runs per batch
const MAX_BYTES = 30 * 1024 * 1024; // under the 32 MiB body limit, with room to spare

// A Bittensor hotkey file holds `secretSeed`, 0x + 64 hex digits.
const { secretSeed } = JSON.parse(readFileSync(env('HOTKEY_FILE'), 'utf8')) as { secretSeed: string };
const hotkey = keypairFromSeed(secretSeed);
// Signs every request anew (fresh uuid and timestamp) for the server's address, read once from /v1/identity.
const client = createSignedScoringClient(BASE, hotkey);
const path = { competitionId: COMPETITION };

/** The rubric of each QnA task, from the task file: `task_id` → its criteria (`id`, `title`). */
function rubrics(file: string | undefined): Map<string, Criterion[]> {
  const out = new Map<string, Criterion[]>();
  if (!file) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { task_id: string; rubric: string };
    out.set(row.task_id, JSON.parse(row.rubric) as Criterion[]);
  }
  return out;
}

/** The judge's view of a criterion title: without its leading numbering (VALIDATING.md, judgeTitle). */
const judgeTitle = (title: string) =>
  title.replace(/^\s*(?:(?:\d+(?:\.\d+)*\s*(?:[:)]|\.(?!\d))|\d+(?:\.\d+)+(?=\s))\s*)+/, '');

/**
 * Stand-in for running the agent (`miner`, or the baseline) once on a task and, for a QnA task,
 * grading its answer: one YES/NO vote per criterion and judge call. Deterministic here.
 */
function runOnce(taskId: string, miner: string, attempt: number, criteria: Criterion[] | undefined, votes: number) {
  const coin = createHash('sha256').update(`${taskId}/${miner}/${attempt}`).digest()[0]!;
  const tokens = { input: 30_000 + coin * 100, cachedInput: 120_000, output: 3_000 + coin * 10 };
  if (!criteria) return { resolved: coin % 3 !== 0, tokens };
  const verdict = coin % 3 !== 0 ? ('YES' as const) : ('NO' as const);
  const rubricVotes = criteria.map((c) => ({
    criterionId: c.id,
    votes: Array.from({ length: votes }, () => ({ verdict, reason: `judged: ${judgeTitle(c.title)}`, evidence: '' })),
  }));
  return { rubricVotes, tokens };
}

const readPending = (): Run[] =>
  existsSync(STATE_FILE)
    ? readFileSync(STATE_FILE, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Run)
    : [];
const writePending = (runs: Run[]) => writeFileSync(STATE_FILE, runs.map((r) => `${JSON.stringify(r)}\n`).join(''));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Refusal = { status: number; problem: { detail?: string; errors?: { path: string; message: string }[] } };

/**
 * Posts one batch until the server answers it: the same runs (same runIds) each time, signed anew.
 * Its answer, or the refusal of runs for what they say (nothing of the batch was stored).
 */
async function postBatch(runs: Run[]): Promise<{ accepted: number; duplicates: number } | Refusal> {
  for (let attempt = 1; ; attempt++) {
    let wait = 2 ** attempt * 500;
    try {
      const { data, error, response } = await client.POST('/v1/competitions/{competitionId}/runs', {
        params: { path },
        body: { runs },
      });
      if (data) return data;
      // The runs themselves are refused: set them aside (postPending), do not resend them as they are.
      if ([400, 404, 409, 422].includes(response.status)) return { status: response.status, problem: error };
      // 408, 429, 503: nothing was stored; come back after Retry-After. Anything else (401, 403, 426:
      // this validator's key, rights or version): fix it; the runs stay pending for the next turn.
      if (![408, 429, 503].includes(response.status)) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
      wait = Number(response.headers.get('retry-after') ?? 1) * 1000;
    } catch (e) {
      // No answer (timeout, reset): the batch may or may not be stored; resending is safe.
      if (!(e instanceof TypeError) || attempt >= 5) throw e;
    }
    if (attempt >= 5) throw new Error('the server kept refusing the batch for now: try next turn');
    await sleep(wait);
  }
}

/** Splits runs into batches within both limits (count and bytes), in order. */
function batches(runs: Run[]): Run[][] {
  const out: Run[][] = [];
  let batch: Run[] = [];
  let bytes = 20;
  for (const run of runs) {
    const size = Buffer.byteLength(JSON.stringify(run)) + 1;
    if (batch.length > 0 && (batch.length === MAX_RUNS || bytes + size > MAX_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 20;
    }
    batch.push(run);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** The runs of `batch` a refusal names (`body/runs/N/…`); all of them when it names none. */
function refusedRuns(batch: Run[], refusal: Refusal): Run[] {
  const named = new Set<number>();
  for (const { path } of refusal.problem.errors ?? []) {
    const at = /^body\/runs\/(\d+)(\/|$)/.exec(path);
    if (at && Number(at[1]) < batch.length) named.add(Number(at[1]));
  }
  return named.size === 0 ? batch : batch.filter((_, i) => named.has(i));
}

/**
 * Posts every pending run, dropping each acknowledged batch from the state file. Runs refused for
 * what they say go to REJECTED_FILE, each with the server's answer, and the rest of their batch is
 * sent again (a refused batch stores nothing; the answer lists its first problems).
 */
async function postPending(): Promise<void> {
  let pending = readPending();
  for (const batch of batches(pending)) {
    let left = batch;
    while (left.length > 0) {
      const answer = await postBatch(left);
      const done = 'status' in answer ? refusedRuns(left, answer) : left;
      if ('status' in answer) {
        appendFileSync(REJECTED_FILE, done.map((run) => `${JSON.stringify({ ...answer, run })}\n`).join(''));
        console.log(`set aside ${done.length} runs the server refused (${answer.status}) in ${REJECTED_FILE}`);
      } else console.log(`posted ${left.length} runs: ${answer.accepted} accepted, ${answer.duplicates} duplicates`);
      const gone = new Set(done);
      left = left.filter((r) => !gone.has(r));
      pending = pending.filter((r) => !gone.has(r));
      writePending(pending);
    }
  }
}

// 1. Announce this validator and its version (and check the competition takes it).
const beat = await client.POST('/v1/validators/heartbeat', { body: { version: VERSION } });
if (!beat.data) throw new Error(`heartbeat refused: ${JSON.stringify(beat.error)}`);
console.log(`validator ${beat.data.id}, version ${beat.data.version}`);
const competition = await client.GET('/v1/competitions/{competitionId}', { params: { path } });
if (!competition.data) throw new Error(`competition ${COMPETITION}: ${JSON.stringify(competition.error)}`);
const required = competition.data.minValidatorVersion;
if (required) console.log(`the competition takes writes from version ${required} on`);

// 2. Runs a previous turn finished but could not post go first.
await postPending();

// 3. The judge QnA runs are graded under (404: none set, and QnA runs name none).
const judge = await client.GET('/v1/competitions/{competitionId}/judge', { params: { path } });
const digest = judge.data?.digest;
const votesPer = judge.data?.votes ?? competition.data.judgeVotes;

// 4. What still needs running: every page of the missing pairs.
const pairs: components['schemas']['CoveragePair'][] = [];
let cursor: string | undefined;
do {
  const page = await client.GET('/v1/competitions/{competitionId}/coverage', {
    params: { path, query: { missing: 'true', ...(cursor ? { cursor } : {}) } },
  });
  if (!page.data) throw new Error(`coverage: ${JSON.stringify(page.error)}`);
  pairs.push(...page.data.pairs);
  cursor = page.data.nextCursor ?? undefined;
} while (cursor);
console.log(`${pairs.length} (task, miner) pairs still missing runs`);

// 5. Run them, keeping each result with its runId before posting it. A QnA task is graded against
// its rubric in the task file; one the file lacks (or holds with another number of criteria than
// the server's) is left for a turn with the right file.
const tasks = rubrics(process.env.TASKS_FILE);
const listed = await client.GET('/v1/competitions/{competitionId}/tasks', { params: { path } });
const qna = new Map((listed.data?.tasks ?? []).filter((t) => t.type === 'swe_atlas_qna').map((t) => [t.id, t]));
const answerDate = new Date().toISOString().slice(0, 10);
const finished: Run[] = [];
for (const pair of pairs) {
  const criteria = tasks.get(pair.taskId);
  const task = qna.get(pair.taskId);
  if (task && criteria?.length !== task.criteriaCount) {
    console.log(`skipping QnA task ${pair.taskId}: its rubric is not in TASKS_FILE as the server holds it`);
    continue;
  }
  for (let i = 0; i < pair.missing; i++) {
    const who =
      pair.miner === 'baseline' ? { kind: 'baseline' as const } : { kind: 'miner' as const, minerHotkey: pair.miner };
    const graded = criteria && digest ? { judge: { digest }, answerDate } : {};
    const result = runOnce(pair.taskId, pair.miner, pair.have + i, criteria, votesPer);
    finished.push({
      runId: `${hotkey.address.slice(0, 8)}:${randomUUID()}`,
      taskId: pair.taskId,
      ...who,
      ...result,
      ...graded,
    });
  }
}
writePending([...readPending(), ...finished]);
await postPending();

// 6. Progress: what is left, as every validator sees it.
const left = await client.GET('/v1/competitions/{competitionId}/coverage', { params: { path, query: { limit: 1 } } });
console.log(`coverage: ${JSON.stringify(left.data?.summary)}`);

// 7. The weights on chain, from the latest snapshot, once `swe-scoring verify` passes on its bytes.
const get = async (route: string) => {
  const res = await fetch(`${BASE}${route}`);
  if (!res.ok) throw Object.assign(new Error(`GET ${route}: ${res.status}`), { status: res.status });
  return Buffer.from(await res.arrayBuffer());
};
const folder = mkdtempSync(join(tmpdir(), 'validator-'));
try {
  const snapshots = `/v1/competitions/${COMPETITION}/snapshots`;
  const bytes = await get(`${snapshots}/latest`).catch((e: { status?: number }) => {
    if (e.status === 404) return null; // the operator has taken none yet
    throw e;
  });
  if (bytes === null) {
    console.log('no snapshot yet: no weights to set this turn');
  } else {
    const snapshot = JSON.parse(bytes.toString('utf8')) as { seq: number; chain?: Record<string, unknown> };
    writeFileSync(join(folder, 'snapshot.json'), bytes);
    writeFileSync(join(folder, 'input.ndjson'), await get(`${snapshots}/${snapshot.seq}/input`));
    if (!existsSync(SNAPSHOT_KEY_FILE)) {
      // Trust on first use: a key read from the server it checks proves only what this turn reads.
      const identity = JSON.parse((await get('/v1/identity')).toString('utf8')) as { publicKey: string };
      writeFileSync(SNAPSHOT_KEY_FILE, identity.publicKey);
      console.log(`kept the server's snapshot-signing key in ${SNAPSHOT_KEY_FILE}: check it with the operator`);
    }
    const cli = new URL('../../bin/swe-scoring.js', import.meta.url).pathname;
    const files = ['snapshot.json', 'input.ndjson'].map((f) => join(folder, f));
    // Exit status 1 names the failed check and throws here: set no weights then.
    execFileSync(process.execPath, [cli, 'verify', ...files, '--public-key', SNAPSHOT_KEY_FILE], {
      stdio: 'inherit',
    });
    const chain = snapshot.chain;
    if (!chain) throw new Error('the snapshot holds no weights on chain: the operator recorded no metagraph');
    if (chain.netuid !== NETUID) throw new Error(`the snapshot is for subnet ${String(chain.netuid)}, not ${NETUID}`);
    const limits = chain.limits as Record<string, boolean | null> | null;
    if (limits && Object.values(limits).includes(false))
      throw new Error(`a subnet limit is broken: ${JSON.stringify(limits)}`);
    // What to hand to subtensor.set_weights, unchanged.
    const args = { netuid: chain.netuid, uids: chain.uids, weights: chain.weights, version_key: chain.versionKey };
    console.log(`set_weights ${JSON.stringify(args)}`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
