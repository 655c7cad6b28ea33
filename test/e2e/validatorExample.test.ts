// docs/examples/validator.ts, the validator VALIDATING.md points to, run as a validator runs it
// (`node --import tsx docs/examples/validator.ts`) against a real server: it must post every
// missing run of SWE-bench and QnA tasks signed with its hotkey, resend what a previous turn left
// pending as duplicates, and hand on exactly the verified snapshot's weights on chain.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keypairFromSeed } from '../../src/client/sign.js';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir, type TempDir } from '../support/tempDir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const C = 'ex';
const seed = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
const VALIDATOR_SEED = seed(11);
const VALIDATOR = keypairFromSeed(VALIDATOR_SEED);
const [BURN, M1, M2] = [12, 13, 14].map((n) => keypairFromSeed(seed(n)));
// The server holds three QnA tasks; the validator's task file, two of them.
const QNA_ROWS = readFileSync(join(ROOT, 'fixtures/swe-atlas-qna/tasks.jsonl'), 'utf8').split('\n').slice(0, 3);
const UNKNOWN_QNA = (JSON.parse(QNA_ROWS[2]!) as { task_id: string }).task_id;

let server: ServerProcess;
let dir: TempDir;
let files: { hotkey: string; tasks: string; state: string; rejected: string; key: string };

async function admin(method: string, path: string, body?: unknown, type = 'application/json') {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': type },
    body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.ok, `${method} ${path}: ${res.status} ${text}`).toBe(true);
  return JSON.parse(text) as Record<string, unknown>;
}

/** One turn of the example; its output. */
async function turn(env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'docs/examples/validator.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SCORING_URL: server.baseUrl,
      COMPETITION: C,
      HOTKEY_FILE: files.hotkey,
      TASKS_FILE: files.tasks,
      STATE_FILE: files.state,
      REJECTED_FILE: files.rejected,
      VALIDATOR_VERSION: '2.1.0',
      SNAPSHOT_KEY_FILE: files.key,
      NETUID: '7',
      ...env,
    },
  });
  return stdout;
}

beforeAll(async () => {
  dir = tempDir('validator-example');
  server = await startServer({ dbPath: join(dir.dir, 'scoring.db') });
  files = {
    hotkey: join(dir.dir, 'hotkey'),
    tasks: join(dir.dir, 'tasks.jsonl'),
    state: join(dir.dir, 'pending.jsonl'),
    rejected: join(dir.dir, 'rejected.jsonl'),
    key: join(dir.dir, 'snapshot-key.pem'),
  };
  writeFileSync(files.hotkey, JSON.stringify({ secretSeed: VALIDATOR_SEED }));
  writeFileSync(files.tasks, `${QNA_ROWS.slice(0, 2).join('\n')}\n`);

  await admin('PUT', `/v1/competitions/${C}`, { name: 'Example', plannedRuns: 2, minValidatorVersion: '2.0.0' });
  await admin('PUT', `/v1/competitions/${C}/tasks`, {
    tasks: [
      { id: 'django__django-11099', type: 'swebench_verified', complexity: 'short' },
      { id: 'sympy__sympy-20590', type: 'swebench_verified', complexity: 'long' },
    ],
  });
  await admin(
    'POST',
    `/v1/competitions/${C}/tasks/import?complexity=medium`,
    `${QNA_ROWS.join('\n')}\n`,
    'application/x-ndjson',
  );
  await admin(
    'PUT',
    `/v1/competitions/${C}/judge`,
    readFileSync(join(ROOT, 'fixtures/swe-atlas-qna/judge.json'), 'utf8'),
  );
  await admin('PUT', `/v1/competitions/${C}/metagraph`, {
    netuid: 7,
    block: 100,
    burnUid: 0,
    versionKey: 3,
    neurons: [
      { uid: 0, hotkey: BURN!.address },
      { uid: 1, hotkey: M1!.address },
      { uid: 2, hotkey: M2!.address },
      { uid: 3, hotkey: VALIDATOR.address, validator: true },
    ],
  });
  await admin('POST', '/v1/validators', { name: 'example', hotkey: VALIDATOR.address });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  dir?.remove();
});

describe('docs/examples/validator.ts against a real server', () => {
  it('posts every missing run it can grade, SWE-bench and QnA, signed; a QnA task its file lacks is left', async () => {
    const out = await turn();
    // 5 tasks × (baseline + 2 miners), 2 planned runs each; the QnA task the file lacks is skipped.
    expect(out).toContain('15 (task, miner) pairs still missing runs');
    expect(out).toContain(`skipping QnA task ${UNKNOWN_QNA}`);
    expect(out).toContain('posted 24 runs: 24 accepted, 0 duplicates');
    expect(out).toContain('no snapshot yet');
    const coverage = (await (await fetch(`${server.baseUrl}/v1/competitions/${C}/coverage`)).json()) as {
      summary: { missing: number; complete: boolean };
    };
    expect(coverage.summary).toMatchObject({ missing: 6, complete: false });
    const runs = (await (await fetch(`${server.baseUrl}/v1/competitions/${C}/runs?limit=100`)).json()) as {
      runs: { validatorId: string | null; kind: string; taskId: string; stale?: boolean }[];
    };
    expect(runs.runs).toHaveLength(24);
    expect(new Set(runs.runs.map((r) => r.validatorId)).size).toBe(1);
    expect(runs.runs.filter((r) => r.stale).length).toBe(0);
    expect(readFileSync(files.state, 'utf8')).toBe('');
  }, 120_000);

  it('resends what a turn left pending: a run stored before its answer was lost is a duplicate', async () => {
    const run = {
      runId: 'lost-answer:1',
      taskId: 'django__django-11099',
      kind: 'baseline',
      resolved: true,
      tokens: { input: 10, output: 1 },
    };
    await admin('POST', `/v1/competitions/${C}/runs`, { runs: [run] });
    writeFileSync(files.state, `${JSON.stringify(run)}\n`);
    const out = await turn();
    expect(out).toContain('posted 1 runs: 0 accepted, 1 duplicates');
    expect(out).toContain('3 (task, miner) pairs still missing runs');
    expect(readFileSync(files.state, 'utf8')).toBe('');
  }, 120_000);

  it('sets aside a run the server refuses for what it says, and posts the rest of its batch', async () => {
    const run = (runId: string, taskId: string) => ({ runId, taskId, kind: 'baseline', resolved: false });
    const pending = [
      run('pending:1', 'sympy__sympy-20590'),
      run('pending:2', 'no-such-task'),
      run('pending:3', 'sympy__sympy-20590'),
    ];
    writeFileSync(files.state, pending.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const out = await turn();
    expect(out).toContain(`set aside 1 runs the server refused (404) in ${files.rejected}`);
    expect(out).toContain('posted 2 runs: 2 accepted, 0 duplicates');
    expect(readFileSync(files.state, 'utf8')).toBe('');
    const rejected = readFileSync(files.rejected, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ status: 404, run: pending[1] });
    // A later turn does not send it again.
    expect(await turn()).not.toContain('set aside');
  }, 120_000);

  it("hands on the verified snapshot's weights on chain, unchanged", async () => {
    const snapshot = (await admin('POST', `/v1/competitions/${C}/snapshots`, {})) as {
      chain: { netuid: number; uids: number[]; weights: number[]; versionKey: number };
    };
    const out = await turn();
    // The first turn that verifies keeps the server's key; later turns check against it.
    expect(out).toContain(`kept the server's snapshot-signing key in ${files.key}`);
    const identity = (await (await fetch(`${server.baseUrl}/v1/identity`)).json()) as { publicKey: string };
    expect(readFileSync(files.key, 'utf8')).toBe(identity.publicKey);
    expect(out).toMatch(/^ok\s+signature/m);
    expect(out).toMatch(/^ok\s+onChain/m);
    const line = out.split('\n').find((l) => l.startsWith('set_weights '));
    expect(JSON.parse(line!.slice('set_weights '.length))).toEqual({
      netuid: 7,
      uids: snapshot.chain.uids,
      weights: snapshot.chain.weights,
      version_key: snapshot.chain.versionKey,
    });
    expect(snapshot.chain.uids.length).toBeGreaterThan(1);
  }, 120_000);

  it('sets no weights from a snapshot signed with a key other than the one it keeps, or for another subnet', async () => {
    await admin('POST', `/v1/competitions/${C}/snapshots`, {});
    const kept = readFileSync(files.key, 'utf8');
    expect(await turn()).not.toContain('kept the server');
    // Another key (the server's replaced, or not the operator's server): verify fails, nothing is set.
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    writeFileSync(files.key, other);
    try {
      const refused = await turn().then(
        () => null,
        (e: { stdout: string; stderr: string }) => e,
      );
      expect(refused, 'the turn fails').not.toBeNull();
      expect(refused!.stdout).not.toContain('set_weights');
      expect(`${refused!.stdout}${refused!.stderr}`).toMatch(/signature/);
      expect(readFileSync(files.key, 'utf8')).toBe(other);
    } finally {
      writeFileSync(files.key, kept);
    }
    const elsewhere = await turn({ NETUID: '8' }).then(
      () => null,
      (e: { stdout: string; stderr: string }) => e,
    );
    expect(elsewhere, 'the turn fails').not.toBeNull();
    expect(elsewhere!.stdout).not.toContain('set_weights');
    expect(elsewhere!.stderr).toContain('the snapshot is for subnet 7, not 8');
  }, 120_000);
});
