// A restarted server answers its first score reads from memory. Nothing is computed and one saved
// row at most is read before the app is returned (and so before it listens and /readyz is 200):
// the newest competition's; every other competition's final-stage scores are restored on its first
// read, or by the pass that goes through every competition after the start (`warmed`), from the
// scores saved at the last graceful
// shutdown where no write has come since (src/db/savedScores.ts; on PostgreSQL, while the
// competition's version is still the one saved), else computed.
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/contract.js';
import { LAZY_FORM_BYTES } from '../../src/http/coding.js';
import { scoresService } from '../../src/services/scores/index.js';
import type { RankedList } from '../../src/services/scores/views.js';
import { scoringCodeIdentity } from '../../src/services/scoringCode.js';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import type { Json } from '../support/json.js';
import { prng } from '../support/prng.js';
import { tempDir } from '../support/tempDir.js';

const dir = tempDir('warm-start');
afterAll(() => dir.remove());
let files = 0;
const newPath = () => join(dir.dir, `warm-${++files}.db`);

/** How many score computations the app's metrics have counted. */
async function computations(t: TestApp): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('scoring_computation_seconds_count'));
  return Number(line?.split(' ')[1]);
}

const TASKS = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6'];
const HOTKEYS = ['alice', 'bob', 'carol', 'dave', 'erin'];

/** A competition with a few miners over tasks of every complexity, runs drawn from `seed`. */
async function competition(t: TestApp, id: string, seed: number): Promise<void> {
  const { validatorKey } = await seedCompetition(t, id);
  const complexities = ['short', 'medium', 'long'];
  const tasks = TASKS.map((task, i) => ({ id: task, type: 'swebench_verified', complexity: complexities[i % 3] }));
  expect(
    (await t.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: { tasks } })).status,
  ).toBe(200);
  const pick = prng(seed).below;
  const runs = [];
  for (const task of TASKS)
    for (let i = 0; i < 3; i++) {
      runs.push({
        runId: `b-${task}-${i}`,
        taskId: task,
        kind: 'baseline',
        resolved: pick(2) === 0,
        tokens: { input: 500 + pick(1000), output: 50 + pick(100) },
      });
      for (const hotkey of HOTKEYS)
        runs.push({
          runId: `${hotkey}-${task}-${i}`,
          taskId: task,
          kind: 'miner',
          minerHotkey: hotkey,
          resolved: pick(3) !== 0,
          tokens: { input: 300 + pick(1200), cachedInput: pick(300), output: 30 + pick(120) },
        });
    }
  const res = await t.call({
    method: 'POST',
    url: `/v1/competitions/${id}/runs`,
    headers: { authorization: `Bearer ${validatorKey}` },
    payload: { runs },
  });
  expect(res.status).toBe(200);
}

/** Every score read of a competition: leaderboard, weights, a page, each miner's and each task's detail. */
async function reads(t: TestApp, id: string): Promise<Record<string, Json>> {
  const base = `/v1/competitions/${id}`;
  const urls = [
    `${base}/leaderboard`,
    `${base}/weights`,
    `${base}/leaderboard?limit=2&offset=1`,
    ...HOTKEYS.map((h) => `${base}/miners/${h}`),
    ...TASKS.map((task) => `${base}/tasks/${task}`),
  ];
  const out: Record<string, Json> = {};
  for (const url of urls) {
    const res = await t.call({ method: 'GET', url });
    expect(res.status, url).toBe(200);
    out[url] = res.body;
  }
  return out;
}

/** Competitions alpha and beta (runs drawn from `seed` and `seed + 1`), saved as the app closes. */
async function savedTwo(path: string, seed: number): Promise<void> {
  const t = await testApp({ path });
  await competition(t, 'alpha', seed);
  await competition(t, 'beta', seed + 1);
  await t.close();
}

it('answers the first reads after a restart from memory, and the same as before it', async () => {
  const path = newPath();
  const first = await testApp({ path });
  const before: Record<string, Record<string, Json>> = {};
  for (const [i, id] of ['alpha', 'beta'].entries()) {
    await competition(first, id, i + 1);
    before[id] = await reads(first, id);
  }
  await first.close();

  const again = await testApp({ path });
  try {
    // Both restored from the last shutdown.
    expect(await computations(again)).toBe(0);
    expect((await again.call({ method: 'GET', url: '/readyz' })).status).toBe(200);
    for (const id of ['alpha', 'beta']) expect(await reads(again, id)).toEqual(before[id]);
    // Breakdowns come from the input, read once the background fill is done; the leaderboard
    // and weights were never computed.
    expect(await computations(again)).toBe(0);
  } finally {
    await again.close();
  }
});

it("reads one saved row before the app is returned, the newest competition's: each other is restored on its first read, or by the pass after", async () => {
  const path = newPath();
  const ids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
  const first = await testApp({ path });
  const before: Record<string, Json> = {};
  for (const [i, id] of ids.entries()) {
    await competition(first, id, 40 + i);
    before[id] = (await first.call({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` })).body;
  }
  await first.close();

  // Every saved row the restarted app reads, in order.
  const loaded: string[] = [];
  const watching = (store: Store): Store => {
    const saved = store.capabilities.savedScores!;
    return {
      ...store,
      capabilities: {
        ...store.capabilities,
        savedScores: {
          ...saved,
          load(code, competitionId) {
            loaded.push(competitionId);
            return saved.load(code, competitionId);
          },
        },
      },
    };
  };
  const again = await testApp({ path, wrapStore: watching });
  try {
    // Ready to listen with one saved row read, the newest competition's, and nothing computed:
    // the start's time does not grow with the competitions a deployment has run.
    expect(loaded).toEqual(['c6']);
    expect(await computations(again)).toBe(0);
    // The last one read at once, and all of them together: each row read once, by whichever came first.
    const reading = ids.map((id) => again.call({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` }));
    const last = await again.call({ method: 'GET', url: '/v1/competitions/c6/leaderboard' });
    expect(last.body).toEqual(before.c6);
    for (const [i, res] of (await Promise.all(reading)).entries()) expect(res.body).toEqual(before[ids[i]!]);
    expect(await again.app.services.scores.warmed()).toEqual({ computed: 0, restored: ids.length });
    expect([...loaded].sort()).toEqual(ids);
    expect(loaded.filter((id) => id === 'c6')).toHaveLength(1);
    expect(await computations(again)).toBe(0);
  } finally {
    await again.close();
  }
});

it("sends the newest competition's large bodies in their kept compressed form from the first read after a restart", async () => {
  const path = newPath();
  const first = await testApp({ path });
  /** A competition whose leaderboard is past LAZY_FORM_BYTES: 220 miners on one task. */
  const wide = async (id: string) => {
    const { validatorKey } = await seedCompetition(first, id);
    const tasks = [{ id: 'T1', type: 'swebench_verified', complexity: 'short' }];
    await first.call({ method: 'PUT', url: `/v1/competitions/${id}/tasks`, headers: admin, payload: { tasks } });
    const runs = [
      { runId: 'b', taskId: 'T1', kind: 'baseline', resolved: true, tokens: { input: 1000, output: 100 } },
      ...Array.from({ length: 220 }, (_, i) => ({
        runId: `m${i}`,
        taskId: 'T1',
        kind: 'miner',
        minerHotkey: `miner-${String(i).padStart(3, '0')}`,
        resolved: i % 3 !== 0,
        tokens: { input: 900 + i, output: 100 },
      })),
    ];
    const res = await first.call({
      method: 'POST',
      url: `/v1/competitions/${id}/runs`,
      headers: { authorization: `Bearer ${validatorKey}` },
      payload: { runs },
    });
    expect(res.status).toBe(200);
  };
  await wide('older');
  await wide('newer');
  const plain: Record<string, string> = {};
  for (const id of ['older', 'newer']) {
    const res = await first.app.inject({ method: 'GET', url: `/v1/competitions/${id}/leaderboard` });
    expect(res.rawPayload.length).toBeGreaterThanOrEqual(LAZY_FORM_BYTES);
    plain[id] = res.headers.etag as string;
  }
  await first.close();

  const again = await testApp({ path });
  try {
    const headers = { 'accept-encoding': 'gzip' };
    const newer = await again.app.inject({ method: 'GET', url: '/v1/competitions/newer/leaderboard', headers });
    // The kept form (gzip at its kept level), not the fast one a first read gets otherwise.
    expect(newer.headers.etag).toBe(`${plain.newer!.slice(0, -1)}-gzip"`);
    expect(JSON.parse(gunzipSync(newer.rawPayload).toString('utf8')).miners).toHaveLength(220);
    const older = await again.app.inject({ method: 'GET', url: '/v1/competitions/older/leaderboard', headers });
    // The older one's first read gets a form made on the request (from the leaderboard's gzip pieces).
    expect(older.headers.etag).toBe(`${plain.older!.slice(0, -1)}-gzip-pieces"`);
    expect(await computations(again)).toBe(0);
  } finally {
    await again.close();
  }
});

it('computes a competition whose saved row cannot be read', async () => {
  const path = newPath();
  await savedTwo(path, 51);
  const board = async (t: TestApp) => (await t.call({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
  const reference = await testApp({ path });
  const before = await board(reference);
  await reference.close();

  let failing = true;
  const attempts: string[] = [];
  const again = await testApp({
    path,
    wrapStore: (store) => {
      const saved = store.capabilities.savedScores!;
      const load = async (code: string, competitionId: string) => {
        attempts.push(competitionId);
        if (failing && competitionId === 'alpha') throw new Error('the saved row cannot be read');
        return saved.load(code, competitionId);
      };
      return { ...store, capabilities: { ...store.capabilities, savedScores: { ...saved, load } } };
    },
  });
  try {
    expect(await board(again)).toEqual(before);
    await again.app.services.scores.warmed();
    // Tried once by whichever came first (the read or the pass), then computed instead.
    expect(attempts.filter((id) => id === 'alpha')).toEqual(['alpha']);
    expect(await computations(again)).toBe(1);
    failing = false;
    expect(await board(again)).toEqual(before);
    expect(attempts.filter((id) => id === 'alpha')).toEqual(['alpha']);
  } finally {
    await again.close();
  }
});

it('takes a snapshot at once after a restart, equal to the reads and verifiable from its input', async () => {
  const path = newPath();
  const first = await testApp({ path });
  await competition(first, 'alpha', 3);
  const board = (await first.call({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
  await first.close();

  const again = await testApp({ path });
  try {
    // No wait: on SQLite the pairs may still be read into memory in the background.
    const res = await again.app.inject({
      method: 'POST',
      url: '/v1/competitions/alpha/snapshots',
      headers: admin,
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(201);
    const seq = (JSON.parse(res.body) as { seq: number }).seq;
    const snapshot = JSON.parse(res.body) as { leaderboard: Json };
    // The read's `total` (of its paging) aside, the snapshot holds what the read showed.
    const { total: _total, ...ranked } = board as { total: number };
    expect(snapshot.leaderboard).toEqual(ranked);
    const input = (await again.app.inject({ method: 'GET', url: `/v1/competitions/alpha/snapshots/${seq}/input` }))
      .body;
    const publicKey = (await again.call({ method: 'GET', url: '/v1/identity' })).body as { publicKey: string };
    const result = verifySnapshot({ snapshot: res.body, input, publicKeyPem: publicKey.publicKey });
    expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
    expect(result.ok).toBe(true);
  } finally {
    await again.close();
  }
});

it('computes a competition a write reaches between reading the saved scores and restoring them', async () => {
  const path = newPath();
  await savedTwo(path, 31);

  const again = await testApp({ path });
  try {
    // A second scores service whose saved scores are read just before a write to alpha lands
    // (through the running app). On SQLite it shares the app's store, and so its listeners; on
    // PostgreSQL it has a store of its own, as another replica would (the app's store counts both
    // competitions as told already: the next test), which hears of the write from the database.
    const store = TEST_ENGINE === 'sqlite' ? again.store : await again.freshStore();
    const saved = store.capabilities.savedScores!;
    const racing: Store = {
      ...store,
      capabilities: {
        ...store.capabilities,
        savedScores: {
          ...saved,
          async load(code, competitionId) {
            const row = await saved.load(code, competitionId);
            if (competitionId !== 'alpha') return row;
            const del = await again.call({
              method: 'DELETE',
              url: '/v1/competitions/alpha/runs/alice-T1-0',
              headers: admin,
            });
            expect(del.status).toBe(200);
            return row;
          },
        },
      },
    };
    const scores = scoresService(racing);
    await scores.warm();
    const warmed = await scores.warmed();
    // On PostgreSQL alpha's restored scores may instead be dropped at its first read, which sees the
    // new version: either way the reads below are the write's.
    if (TEST_ENGINE === 'sqlite') expect(warmed).toEqual({ computed: 1, restored: 1 });
    const now = (await again.call({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
    const view = await scores.leaderboard('alpha');
    const { head, entries, shown } = (await view.value()) as RankedList;
    expect({ ...head, total: entries.length, miners: entries.map((e) => (shown ? shown(e) : e)) }).toEqual(now);
    const alice = (now as { miners: { hotkey: string; runs: number }[] }).miners.find((m) => m.hotkey === 'alice');
    expect(alice!.runs).toBe(17);
    if (store !== again.store) await store.close();
  } finally {
    await again.close();
  }
});

describe.runIf(TEST_ENGINE === 'postgres')('scores saved at shutdown (PostgreSQL)', () => {
  /** The saved rows, by competition, with the version each stands for and the competition's version now. */
  async function saved(t: TestApp): Promise<Map<string, { version: number; now: number }>> {
    const rows = (await t.query(
      `SELECT s.competition_id, s.version, v.version AS now FROM saved_scores s
       JOIN competition_versions v USING (competition_id)`,
    )) as { competition_id: string; version: number | string; now: number | string }[];
    return new Map(rows.map((r) => [r.competition_id, { version: Number(r.version), now: Number(r.now) }]));
  }

  it('restores a competition only while its version is the one saved, whichever replica wrote since', async () => {
    const path = newPath();
    const a = await testApp({ path });
    const before: Record<string, Record<string, Json>> = {};
    for (const [i, id] of ['alpha', 'beta'].entries()) {
      await competition(a, id, 21 + i);
      before[id] = await reads(a, id);
    }
    // A second replica, started before anything was saved: it computes both.
    const b = await testApp({ path });
    let c: TestApp | undefined;
    let d: TestApp | undefined;
    try {
      await b.app.services.scores.warmed();
      expect(await computations(b)).toBe(2);
      await a.close();
      const rows = await saved(b);
      expect([...rows.keys()].sort()).toEqual(['alpha', 'beta']);
      for (const [id, row] of rows) expect(row.version, id).toBe(row.now);

      // b writes to beta: a's row of beta no longer stands for the data.
      const del = await b.call({ method: 'DELETE', url: '/v1/competitions/beta/runs/bob-T2-1', headers: admin });
      expect(del.status).toBe(200);
      expect((await saved(b)).get('beta')!.version).toBeLessThan((await saved(b)).get('beta')!.now);

      const fresh = await b.freshStore();
      try {
        const load = (id: string) => fresh.capabilities.savedScores!.load(scoringCodeIdentity(), id);
        expect((await load('alpha'))?.competitionId).toBe('alpha');
        expect(await load('beta')).toBeUndefined();
      } finally {
        await fresh.close();
      }

      c = await testApp({ path });
      await c.app.services.scores.warmed();
      expect(await computations(c)).toBe(1); // beta, by the start's pass
      expect(await reads(c, 'alpha')).toEqual(before.alpha);
      const betaNow = await reads(b, 'beta');
      expect(betaNow).not.toEqual(before.beta);
      expect(await reads(c, 'beta')).toEqual(betaNow);

      // b saves beta as it now stands; c's close keeps the newer row of each.
      await b.close();
      await c.close();
      c = undefined;
      d = await testApp({ path });
      await d.app.services.scores.warmed();
      expect(await computations(d)).toBe(0);
      expect(await reads(d, 'beta')).toEqual(betaNow);
    } finally {
      await b.close().catch(() => {});
      await c?.close();
      await d?.close();
    }
  });

  it('does not restore a competition the process was told of before it read the saved scores', async () => {
    const path = newPath();
    await savedTwo(path, 25);
    const again = await testApp({ path });
    const fresh = await again.freshStore();
    try {
      // A fresh store that has caught up with alpha (as a notification or a read would) keeps its
      // own count of alpha: only beta is restored.
      await fresh.capabilities.freshness!.sync('alpha');
      const load = (id: string) => fresh.capabilities.savedScores!.load(scoringCodeIdentity(), id);
      expect(await load('alpha')).toBeUndefined();
      expect((await load('beta'))?.competitionId).toBe('beta');
    } finally {
      await fresh.close();
      await again.close();
    }
  });
});

describe.runIf(TEST_ENGINE === 'sqlite')('scores saved at shutdown (SQLite)', () => {
  /** The saved rows of a database file, by competition. */
  function saved(path: string): Map<string, { code: string; stages: string }> {
    const c = new Database(path, { readonly: true });
    try {
      const rows = c.prepare('SELECT competition_id, code, stages FROM saved_scores').all() as {
        competition_id: string;
        code: string;
        stages: string;
      }[];
      return new Map(rows.map((r) => [r.competition_id, { code: r.code, stages: r.stages }]));
    } finally {
      c.close();
    }
  }

  /** Runs statements on the file as another process would, the server stopped. */
  function write(path: string, ...statements: string[]): void {
    const c = new Database(path);
    try {
      for (const s of statements) c.prepare(s).run();
    } finally {
      c.close();
    }
  }

  async function twoCompetitions(path: string): Promise<Record<string, Record<string, Json>>> {
    const t = await testApp({ path });
    const out: Record<string, Record<string, Json>> = {};
    for (const [i, id] of ['alpha', 'beta'].entries()) {
      await competition(t, id, 10 + i);
      out[id] = await reads(t, id);
    }
    await t.close();
    return out;
  }

  it('keeps a row per competition, and a write to one, from any process, drops only its row', async () => {
    const path = newPath();
    const before = await twoCompetitions(path);
    expect([...saved(path).keys()].sort()).toEqual(['alpha', 'beta']);
    expect(saved(path).get('alpha')!.stages).toBe('screener_2,evaluation');

    // Another process excludes a miner of beta's while the server is down.
    write(path, `UPDATE miners SET excluded = 1 WHERE competition_id = 'beta' AND hotkey = 'bob'`);
    expect([...saved(path).keys()]).toEqual(['alpha']);

    const again = await testApp({ path });
    try {
      await again.app.services.scores.warmed();
      expect(await computations(again)).toBe(1); // beta, by the start's pass
      expect(await reads(again, 'alpha')).toEqual(before.alpha);
      const board = (await again.call({ method: 'GET', url: '/v1/competitions/beta/leaderboard' })).body as {
        miners: { hotkey: string; excluded: boolean }[];
      };
      expect(board.miners.find((m) => m.hotkey === 'bob')!.excluded).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('drops a row on every change its scores are computed from', async () => {
    const path = newPath();
    await twoCompetitions(path);
    const changes = [
      `INSERT INTO miner_tasks (competition_id, task_id, hotkey, runs) VALUES ('alpha', 'T1', 'zed', 1)`,
      `UPDATE miner_tasks SET runs = runs + 1 WHERE competition_id = 'alpha' AND task_id = 'T2' AND hotkey = 'bob'`,
      `DELETE FROM miner_tasks WHERE competition_id = 'alpha' AND task_id = 'T3' AND hotkey = 'bob'`,
      `UPDATE tasks SET complexity = 'long' WHERE competition_id = 'alpha' AND id = 'T1'`,
      `DELETE FROM task_criteria WHERE 0`, // no row changes: not an aggregate anyway
      `UPDATE miners SET excluded = 1 WHERE competition_id = 'alpha' AND hotkey = 'carol'`,
      `UPDATE competitions SET burn_ratio = 0.5 WHERE id = 'alpha'`,
    ];
    const dropping = changes.filter((s) => !s.startsWith('DELETE FROM task_criteria'));
    for (const change of changes) {
      // Saved again as they stand (a start restores or computes, the close saves).
      const t = await testApp({ path });
      await t.close();
      expect([...saved(path).keys()].sort(), change).toEqual(['alpha', 'beta']);
      write(path, change);
      expect([...saved(path).keys()].sort(), change).toEqual(dropping.includes(change) ? ['beta'] : ['alpha', 'beta']);
    }
    // A deleted competition takes its row with it; a new task or miner drops it too.
    write(path, `DELETE FROM saved_scores WHERE competition_id = 'alpha'`);
    for (const change of [
      `INSERT INTO miners (competition_id, hotkey) VALUES ('beta', 'newcomer')`,
      `DELETE FROM miners WHERE competition_id = 'beta' AND hotkey = 'newcomer'`,
    ]) {
      const t = await testApp({ path });
      await t.close();
      expect(saved(path).has('beta'), change).toBe(true);
      write(path, change);
      expect(saved(path).has('beta'), change).toBe(false);
    }
  });

  it('saves at the close the scores a write dropped after the last read', async () => {
    const path = newPath();
    const t = await testApp({ path });
    await competition(t, 'alpha', 5);
    const board = (await t.call({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
    const late = await t.call({ method: 'DELETE', url: '/v1/competitions/alpha/runs/alice-T1-0', headers: admin });
    expect(late.status).toBe(200);
    await t.close(); // no read since the write
    expect([...saved(path).keys()]).toEqual(['alpha']);
    const again = await testApp({ path });
    try {
      expect(await computations(again)).toBe(0);
      const now = (await again.call({ method: 'GET', url: '/v1/competitions/alpha/leaderboard' })).body;
      expect(now).not.toEqual(board);
      const alice = (now as { miners: { hotkey: string; runs: number }[] }).miners.find((m) => m.hotkey === 'alice');
      expect(alice!.runs).toBe(17);
    } finally {
      await again.close();
    }
  });

  it('computes afresh when the saved scores come from other scoring code', async () => {
    const path = newPath();
    const before = await twoCompetitions(path);
    const code = saved(path).get('alpha')!.code;
    expect(code).toMatch(/^[0-9a-f]{64}$/);
    write(
      path,
      `UPDATE saved_scores SET code = 'another build', scores = '{"miners":[]}' WHERE competition_id = 'alpha'`,
    );
    const again = await testApp({ path });
    try {
      await again.app.services.scores.warmed();
      expect(await computations(again)).toBe(1);
      expect(await reads(again, 'alpha')).toEqual(before.alpha);
    } finally {
      await again.close();
    }
    expect(saved(path).get('alpha')!.code).toBe(code);
  });

  it('scores a write after a restored start as a server that computed would', async () => {
    const path = newPath();
    await twoCompetitions(path);
    const again = await testApp({ path });
    const after = async (t: TestApp) => {
      const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'late' } });
      const key = (v.body as { apiKey: string }).apiKey;
      const runs = TASKS.map((task) => ({
        runId: `late-${task}`,
        taskId: task,
        kind: 'miner',
        minerHotkey: 'frank',
        resolved: true,
        tokens: { input: 100, output: 10 },
      }));
      const res = await t.call({
        method: 'POST',
        url: '/v1/competitions/alpha/runs',
        headers: { authorization: `Bearer ${key}` },
        payload: { runs },
      });
      expect(res.status).toBe(200);
      // A delete too: a pair that leaves the aggregates.
      const del = await t.call({ method: 'DELETE', url: '/v1/competitions/alpha/runs/alice-T1-0', headers: admin });
      expect(del.status).toBe(200);
      return reads(t, 'alpha');
    };
    let restored: Record<string, Json>;
    try {
      expect(await computations(again)).toBe(0);
      // The write lands while the pairs may still be read into memory in the background.
      restored = await after(again);
    } finally {
      await again.close();
    }
    // The same writes on a copy of the database with no saved scores: computed from the start.
    const copy = newPath();
    write(path, `VACUUM INTO '${copy}'`);
    write(copy, `DELETE FROM saved_scores`);
    const computing = await testApp({ path: copy });
    try {
      await computing.app.services.scores.warmed();
      expect(await computations(computing)).toBe(2);
      // The copy has the late writes already: its reads are the after-state.
      expect(await reads(computing, 'alpha')).toEqual(restored);
    } finally {
      await computing.close();
    }
  });

  const BIG_TASKS = Array.from({ length: 100 }, (_, i) => `T${String(i).padStart(3, '0')}`);
  const bigRun = (runId: string, taskId: string, hotkey: string) => ({
    runId,
    taskId,
    kind: 'miner',
    minerHotkey: hotkey,
    resolved: runId.length % 2 === 0,
    tokens: { input: 100, output: 10 },
  });

  /**
   * A competition of 9,000 pairs (90 miners x 100 tasks), whose pairs a restored start reads in
   * nine steps, each a turn of the event loop; saved at the close. Answers the validator's
   * authorization header and m05's breakdown as read before the close.
   */
  async function bigCompetition(path: string): Promise<{ auth: Record<string, string>; m05: Json }> {
    const first = await testApp({ path });
    const { validatorKey } = await seedCompetition(first, 'big');
    const auth = { authorization: `Bearer ${validatorKey}` };
    const tasks = BIG_TASKS.map((id) => ({ id, type: 'swebench_verified', complexity: 'short' }));
    await first.call({ method: 'PUT', url: '/v1/competitions/big/tasks', headers: admin, payload: { tasks } });
    const all = Array.from({ length: 90 }, (_, m) => `m${String(m).padStart(2, '0')}`).flatMap((h) =>
      BIG_TASKS.map((task) => bigRun(`${h}-${task}`, task, h)),
    );
    for (let at = 0; at < all.length; at += 1000) {
      const res = await first.call({
        method: 'POST',
        url: '/v1/competitions/big/runs',
        headers: auth,
        payload: { runs: all.slice(at, at + 1000) },
      });
      expect(res.status).toBe(200);
    }
    const m05 = (await first.call({ method: 'GET', url: '/v1/competitions/big/miners/m05' })).body;
    await first.close();
    return { auth, m05 };
  }

  it("answers a breakdown after a restored start from the miner's own pairs, without waiting for them all", async () => {
    const path = newPath();
    const { m05 } = await bigCompetition(path);
    const again = await testApp({ path });
    try {
      expect(await computations(again)).toBe(0);
      let filled = false;
      void again.app.services.scores.prepared('big').then(() => (filled = true));
      const read = await again.call({ method: 'GET', url: '/v1/competitions/big/miners/m05' });
      expect(read.status).toBe(200);
      // Answered while the competition's pairs were still being read into memory, and the same.
      expect(filled).toBe(false);
      expect(read.body).toEqual(m05);
      await again.app.services.scores.prepared('big');
      expect(filled).toBe(true);
      expect(await computations(again)).toBe(0);
    } finally {
      await again.close();
    }
  });

  it("reads the whole input instead when a write commits while the miner's own pairs wait their turn", async () => {
    const path = newPath();
    await bigCompetition(path);
    const again = await testApp({ path });
    try {
      expect(await computations(again)).toBe(0);
      const competition = await again.store.competitions.get('big');
      // A transaction held open: reads outside it wait for it to end (src/db/sqlite/store.ts).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let opened!: () => void;
      const open = new Promise<void>((resolve) => (opened = resolve));
      const writing = again.store.transaction(async (tx) => {
        const run = await tx.runs.get('big', 'm05-T000');
        await tx.runs.delete(run!, competition!.tokenWeights);
        opened();
        await held;
      });
      await open;
      // The read takes the saved scores, then waits for the miner's pairs behind the transaction.
      const reading = again.call({ method: 'GET', url: '/v1/competitions/big/miners/m05' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await writing;
      const read = await reading;
      expect(read.status).toBe(200);
      const body = read.body as { runs: number; tasks: { runs: number }[] };
      // Not the saved total (100) beside pairs read after the delete (99): one state, the new one.
      expect(body.tasks.reduce((sum, t) => sum + t.runs, 0)).toBe(99);
      expect(body.runs).toBe(99);
    } finally {
      await again.close();
    }
  });

  it('answers a breakdown from scores and input of one state when a write lands while the pairs are read', async () => {
    const path = newPath();
    const { auth } = await bigCompetition(path);
    const again = await testApp({ path });
    try {
      expect(await computations(again)).toBe(0);
      // The write lands as the breakdown is read, and drops the saved scores: the breakdown is
      // either the state before it (the miner's own pairs, read at once) or after it (computed).
      const late = BIG_TASKS.slice(0, 10).map((task) => bigRun(`late-${task}`, task, 'm05'));
      const [read, write] = await Promise.all([
        again.call({ method: 'GET', url: '/v1/competitions/big/miners/m05' }),
        again.call({ method: 'POST', url: '/v1/competitions/big/runs', headers: auth, payload: { runs: late } }),
      ]);
      expect(write.status).toBe(200);
      expect(read.status).toBe(200);
      const body = read.body as { runs: number; tasks: { runs: number }[] };
      expect(body.runs).toBe(body.tasks.reduce((sum, t) => sum + t.runs, 0));
      const now = (await again.call({ method: 'GET', url: '/v1/competitions/big/miners/m05' })).body as typeof body;
      expect(now.runs).toBe(110);
      expect(now.tasks.reduce((sum, t) => sum + t.runs, 0)).toBe(110);
    } finally {
      await again.close();
    }
  });
});
