// The mixed writes of the replica suites (./pgReplicasKit.ts): every kind of write the server
// takes, one drawn at random each time, with what was acknowledged kept to check against.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { http } from '../support/http.js';
import type { Rng } from '../support/prng.js';
import { SERVER_ADMIN_TOKEN, type ServerProcess } from '../support/serverProcess.js';
import { makeRun, QNA_TASK, setupCompetition, TASKS, type RunBody } from './fixture.js';
import { C, send } from './pgReplicasKit.js';

/** Two registered hotkeys (ss58) for the metagraphs; the fixture's miners are not on chain. */
const ON_CHAIN = [
  '5C4hrfjw9DjXZTzV3MwzrrAr9P1MJhSrvWGWqi1eSuyUpnhM',
  '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty',
];
const JUDGE = {
  ...(JSON.parse(readFileSync(new URL('../../fixtures/swe-atlas-qna/judge.json', import.meta.url), 'utf8')) as object),
  votes: 3,
};
const QNA_ROWS = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .slice(0, 6);

/** The competition, two validators whose runs it counts, and their keys. */
export async function setupReplicated(server: ServerProcess): Promise<Mixed> {
  await setupCompetition(async (m, p, body) => http(server.baseUrl, m, p, { token: SERVER_ADMIN_TOKEN, body }));
  const validators: { id: string; key: string }[] = [];
  for (const name of ['val-1', 'val-2']) {
    const res = await send(server, 'POST', '/v1/validators', { name });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const body = res.body as { id: string; apiKey: string };
    validators.push({ id: body.id, key: body.apiKey });
  }
  return new Mixed(validators);
}

export interface Op {
  kind: string;
  status: number;
  text: string;
  acknowledged: boolean;
  type: string;
  retryAfter: string | null;
}

/** The mixed writes: each draws one kind and sends it to the given replica. */
export class Mixed {
  /** Every run acknowledged and not deleted since, by id. */
  readonly stored = new Map<string, RunBody>();
  /** Runs whose deletion was acknowledged. */
  readonly deleted = new Set<string>();
  private next = 0;
  private judge = 0;
  /** The digests of the judge configurations set, in order. */
  private readonly digests: string[] = [];
  private block = 0;
  private imported = 0;
  constructor(readonly validators: { id: string; key: string }[]) {}

  async one(rng: Rng, to: ServerProcess, prefix: string): Promise<Op> {
    const kinds = [
      'runs',
      'runs',
      'runs',
      'delete',
      'exclude',
      'retag',
      'settings',
      'judge',
      'metagraph',
      'snapshot',
      'import',
      'session',
      'miner',
    ];
    const kind = rng.pick(kinds);
    const done = (res: Awaited<ReturnType<typeof send>>): Op => ({
      kind,
      status: res.status,
      text: JSON.stringify(res.body),
      acknowledged: res.status === 200 || res.status === 201,
      type: res.type,
      retryAfter: res.retryAfter,
    });
    switch (kind) {
      case 'runs': {
        const runs = Array.from({ length: rng.int(1, 12) }, () => {
          const run = makeRun(rng, `${prefix}${this.next++}`);
          // Graded under the judge in force, now and then under the one before (stale).
          if (run.taskId === QNA_TASK && this.digests.length > 0)
            Object.assign(run, {
              judge: { digest: rng.chance(0.8) ? this.digests.at(-1) : this.digests[0] },
              answerDate: '2026-11-30',
            });
          return run;
        });
        const res = await send(to, 'POST', `${C}/runs`, { runs }, rng.pick(this.validators).key);
        if (res.status === 200) for (const r of runs) this.stored.set(r.runId, r);
        return done(res);
      }
      case 'delete': {
        const ids = [...this.stored.keys()];
        if (ids.length === 0)
          return { kind, status: 0, text: 'nothing to delete', acknowledged: false, type: '', retryAfter: null };
        const id = rng.pick(ids);
        const res = await send(to, 'DELETE', `${C}/runs/${id}`);
        if (res.status === 200) this.deleted.add(id);
        // Refused (503), it may have been deleted all the same: neither kept nor gone for sure.
        if (res.status === 200 || res.status === 503) this.stored.delete(id);
        return done(res);
      }
      case 'exclude': {
        const v = rng.pick(this.validators);
        return done(await send(to, 'PUT', `${C}/validators/${v.id}`, { excluded: rng.chance(0.5), reason: 'audit' }));
      }
      case 'retag': {
        const tasks = TASKS.map((t) =>
          t.type === 'swe_atlas_qna' ? t : { ...t, complexity: rng.pick(['short', 'medium', 'long']) },
        );
        return done(await send(to, 'PUT', `${C}/tasks`, { tasks }));
      }
      case 'settings':
        // Token weights recount every aggregate; final stages change which scores the plain reads show.
        return done(
          await send(to, 'PUT', C, {
            name: 'Reliability',
            judgeVotes: 3,
            burnRatio: rng.pick([0, 0.1, 0.25]),
            tokenWeights: rng.pick([
              { input: 1, cachedInput: 0.1, output: 3 },
              { input: 1, cachedInput: 0.5, output: 2 },
            ]),
            finalStages: rng.pick([['screener_2', 'evaluation'], ['evaluation']]),
            plannedRuns: rng.pick([3, 5]),
          }),
        );
      case 'judge': {
        const res = await send(to, 'PUT', `${C}/judge`, { ...JUDGE, model: `judge-${this.judge++ % 2}` });
        if (res.status === 200) this.digests.push((res.body as { digest: string }).digest);
        return done(res);
      }
      case 'metagraph': {
        const neurons = ON_CHAIN.map((hotkey, uid) => ({ uid, hotkey }));
        return done(
          await send(to, 'PUT', `${C}/metagraph`, { netuid: 1, block: ++this.block, neurons, burnUid: rng.int(0, 1) }),
        );
      }
      case 'snapshot':
        return done(await send(to, 'POST', `${C}/snapshots`, { note: prefix }));
      case 'import': {
        const row = QNA_ROWS[this.imported++ % QNA_ROWS.length]!;
        const res = await fetch(`${to.baseUrl}${C}/tasks/import?stage=evaluation`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
          body: `${row}\n`,
        });
        return done({
          status: res.status,
          body: await res.text(),
          type: res.headers.get('content-type') ?? '',
          retryAfter: res.headers.get('retry-after'),
        });
      }
      case 'session': {
        // An import session's requests all go to one replica (compose.yaml pins them by path).
        const opened = await send(to, 'POST', `${C}/tasks/imports`, { format: 'jsonl', stage: 'screener_2' });
        if (opened.status !== 201) return done(opened);
        const session = `${C}/tasks/imports/${(opened.body as { sessionId: string }).sessionId}`;
        const row = QNA_ROWS[this.imported++ % QNA_ROWS.length]!;
        const chunk = await fetch(`${to.baseUrl}${session}/chunks/0`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
          body: `${row}\n`,
        });
        await chunk.arrayBuffer();
        if (chunk.status !== 200)
          return { kind, status: chunk.status, text: 'chunk', acknowledged: false, type: '', retryAfter: null };
        return done(await send(to, 'POST', `${session}/commit`));
      }
      default: {
        const hotkey = rng.pick(['hk-c', 'hk-d']);
        return done(await send(to, 'PUT', `${C}/miners/${hotkey}`, { excluded: rng.chance(0.5), reason: 'check' }));
      }
    }
  }

  /** Every acknowledged run is stored once, every acknowledged deletion gone: listed by a replica. */
  async expectStored(server: ServerProcess): Promise<void> {
    const listed = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const res = await send(server, 'GET', `${C}/runs?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const page = res.body as { runs: { runId: string }[]; nextCursor?: string | null };
      for (const r of page.runs) {
        expect(listed.has(r.runId), `${r.runId} listed twice`).toBe(false);
        listed.add(r.runId);
      }
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    for (const id of this.stored.keys()) expect(listed.has(id), `acknowledged run ${id} is stored`).toBe(true);
    for (const id of this.deleted) expect(listed.has(id), `deleted run ${id} is gone`).toBe(false);
  }
}
