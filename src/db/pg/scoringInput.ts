// src/db/scoringInput.ts on PostgreSQL: a competition's aggregates as the scoring core's input,
// with the (task, miner) entries kept in memory per competition and only the pairs that write
// events name read again (the events of this process's commits, and of other processes' as the
// store's `listeners` are told them; a 'rebuild' reads everything again).
//
// Unlike SQLite's synchronous read, a load here awaits, and writes commit meanwhile. So:
// - the changed set is swapped for an empty one as a load starts: an event told during the read
//   lands in the new set and its pair is read again next time (a re-read of a pair is harmless);
// - a load reads tasks, miners and the pairs in one REPEATABLE READ snapshot, so the three agree;
// - concurrent loads of one competition share the one in flight, unless an event came after it
//   started (then its answer might predate a write the caller has seen commit: they wait and
//   read again).
import type pg from 'pg';
import type { EntryList, MinerTaskSummary, ScoringMiner, ScoringTask, TokenWeights } from '../../scoring/types.js';
import { pairKey, type WriteListener } from '../events.js';
import { PairMirror } from '../pairMirror.js';
import { inSnapshot, type PgContext } from './context.js';
import { minerEntry, minerTaskEntry, taskEntry } from '../scoringRows.js';

export interface ScoringInput {
  tasks: ScoringTask[];
  miners: ScoringMiner[];
  minerTasks: EntryList<MinerTaskSummary>;
}

interface CompetitionState {
  mirror: PairMirror | null;
  /** Pairs changed since the mirror's read began; null: read everything again. */
  changed: Set<string> | null;
  /**
   * The competition's version every pair of the mirror stands for (null: none yet): the pairs a
   * peer changed since are those stamped after it (pair_versions).
   */
  version: number | null;
  /** Another process wrote to the competition since the mirror's read began. */
  peer: boolean;
  /** Counts the competition's events, so a load knows whether any came since another began. */
  events: number;
  inflight: { weights: TokenWeights; events: number; promise: Promise<ScoringInput> } | null;
}

/** The per-competition mirrors of one store, kept up to date from its listeners. */
export interface ScoringMirrors {
  pool: pg.Pool;
  states: Map<string, CompetitionState>;
}

export function createScoringMirrors(pool: pg.Pool, listeners: Set<WriteListener>): ScoringMirrors {
  const states = new Map<string, CompetitionState>();
  listeners.add((event) => {
    const s = states.get(event.competitionId);
    if (!s) return;
    s.events++;
    if (event.kind === 'rebuild') s.changed = null;
    else if (event.kind === 'pair') s.changed?.add(event.pair);
    else if (event.kind === 'peer') s.peer = true;
  });
  return { pool, states };
}

const TASKS = `SELECT id, stage, complexity, planned_runs, baseline_runs, baseline_resolved,
    baseline_token_count, baseline_input_sum, baseline_cached_sum, baseline_output_sum
  FROM tasks WHERE competition_id = $1 ORDER BY id COLLATE "C"`;
const MINERS = 'SELECT hotkey, excluded FROM miners WHERE competition_id = $1 ORDER BY hotkey COLLATE "C"';
const COLUMNS = 'm.task_id, m.hotkey, m.runs, m.resolved, m.token_count, m.input_sum, m.cached_sum, m.output_sum';
// SQLite's order: miner_tasks' primary key (competition, hotkey, task).
const PAIRS = `SELECT ${COLUMNS} FROM miner_tasks m WHERE m.competition_id = $1
  ORDER BY m.hotkey COLLATE "C", m.task_id COLLATE "C"`;
const SOME_PAIRS = `SELECT ${COLUMNS} FROM miner_tasks m
  JOIN unnest($2::text[], $3::text[]) AS u(task_id, hotkey) ON m.task_id = u.task_id AND m.hotkey = u.hotkey
  WHERE m.competition_id = $1`;

/** What the competition's stamps cover (src/db/pg/schema.ts, competition_versions). */
const STAMPS = 'SELECT version, stamped_from, stamped_through FROM competition_versions WHERE competition_id = $1';
/** The pairs changed after a version, in miner_tasks' key order: their rows are read again. */
const STAMPED_SINCE = `SELECT task_id, hotkey FROM pair_versions WHERE competition_id = $1 AND version > $2
  ORDER BY hotkey COLLATE "C", task_id COLLATE "C"`;

const OWN_PAIRS = `SELECT ${COLUMNS} FROM miner_tasks m WHERE m.competition_id = $1 AND m.hotkey = $2
  ORDER BY m.task_id COLLATE "C"`;

type Query = (text: string, values: unknown[], name: string) => Promise<unknown[][]>;

const sameWeights = (a: TokenWeights, b: TokenWeights) =>
  a.input === b.input && a.cachedInput === b.cachedInput && a.output === b.output;

async function readTasksAndMiners(
  query: Query,
  competitionId: string,
  w: TokenWeights,
): Promise<{ tasks: ScoringTask[]; miners: ScoringMiner[] }> {
  const tasks = (await query(TASKS, [competitionId], 'pg_scoring_tasks')).map((r) => taskEntry(r, w));
  const miners = (await query(MINERS, [competitionId], 'pg_scoring_miners')).map(minerEntry);
  return { tasks, miners };
}

export function pgScoringInputRepo(ctx: PgContext, mirrors: ScoringMirrors) {
  const txQuery: Query = (text, values, name) => ctx.query<unknown[]>(text, values, { array: true, name });

  /** Reads in one REPEATABLE READ snapshot on a client of its own. */
  const snapshot = <T>(fn: (query: Query) => Promise<T>): Promise<T> =>
    inSnapshot(mirrors.pool, (q) => fn((text, values, name) => q<unknown[]>(text, values, { array: true, name })));

  /**
   * Whether the pairs stamped after `since` are every pair changed from `since` to the version
   * read: every write in between stamped its pairs, and none rebuilt every aggregate.
   */
  const stampsCover = (since: number | null, stamps: unknown[] | undefined): boolean => {
    const [version, from, through] = (stamps ?? [0, 0, 0]).map(Number) as [number, number, number];
    return since !== null && (version === since || (from <= since + 1 && through === version));
  };

  /** A load from the mirror, started synchronously up to its first await (the swap of the changed set). */
  function read(s: CompetitionState, competitionId: string, w: TokenWeights): Promise<ScoringInput> {
    let mirror = s.mirror && s.changed && sameWeights(s.mirror.weights, w) ? s.mirror : null;
    const changed = mirror ? s.changed! : null;
    const peer = s.peer;
    const since = s.version;
    s.changed = new Set();
    s.peer = false;
    return snapshot(async (query) => {
      const { tasks, miners } = await readTasksAndMiners(query, competitionId, w);
      const [stamps] = await query(STAMPS, [competitionId], 'pg_scoring_stamps');
      const version = stamps ? Number(stamps[0]) : 0;
      // Another process wrote: the pairs it changed are those stamped since the mirror's version,
      // unless some write in between did not stamp (then everything is read again).
      if (mirror && peer && !stampsCover(since, stamps)) mirror = null;
      if (!mirror) {
        s.mirror = new PairMirror({ ...w }, await query(PAIRS, [competitionId], 'pg_scoring_pairs'));
        s.version = version;
        return { tasks, miners, minerTasks: s.mirror.entries() };
      }
      const keys = new Set(changed);
      if (peer) {
        if (version !== since) {
          for (const r of await query(STAMPED_SINCE, [competitionId, since], 'pg_scoring_stamped'))
            keys.add(pairKey(r[0] as string, r[1] as string));
        }
        s.version = version;
      }
      if (keys.size > 0) {
        const split = [...keys].map((k) => k.split('\u0000') as [string, string]);
        const rows = await query(
          SOME_PAIRS,
          [competitionId, split.map((k) => k[0]), split.map((k) => k[1])],
          'pg_scoring_some_pairs',
        );
        const found = new Map(rows.map((r) => [pairKey(r[0] as string, r[1] as string), r]));
        // In the changed set's order, as SQLite: a pair seen again keeps its place, a new one goes last.
        for (const key of keys) {
          const row = found.get(key);
          if (row) mirror.put(row);
          else mirror.remove(...(key.split('\u0000') as [string, string]));
        }
      }
      return { tasks, miners, minerTasks: mirror.entries() };
    }).catch((err: unknown) => {
      // What the failed read would have applied is lost: read everything next time.
      s.changed = null;
      throw err;
    });
  }

  const repo = {
    /**
     * Brings the competition's mirror up to date (SQLite fills its own a page at a time: src/db/
     * scoringInput.ts). Here a load awaits its rows without holding the event loop: one step.
     */
    async *prepare(competitionId: string, w: TokenWeights): AsyncGenerator<number, void, unknown> {
      yield (await repo.load(competitionId, w)).minerTasks.length;
    },

    /** A miner's part of the scoring input (src/db/scoringInput.ts), in one snapshot; no mirror. */
    async minerInput(competitionId: string, hotkey: string, w: TokenWeights): Promise<ScoringInput> {
      const read = async (query: Query) => ({
        ...(await readTasksAndMiners(query, competitionId, w)),
        minerTasks: (await query(OWN_PAIRS, [competitionId, hotkey], 'pg_scoring_own_pairs')).map((r) =>
          minerTaskEntry(r, w),
        ),
      });
      return ctx.inTransaction ? read(txQuery) : snapshot(read);
    },

    /** Pairs held in memory for the competition (src/db/scoringInput.ts). */
    async held(competitionId: string): Promise<number> {
      return mirrors.states.get(competitionId)?.mirror?.size ?? 0;
    },

    /**
     * Drops the competition's in-memory pairs (src/db/scoringInput.ts); a load under way keeps
     * them, and the next one after it reads every row.
     */
    async release(competitionId: string): Promise<void> {
      const s = mirrors.states.get(competitionId);
      if (!s) return;
      if (s.inflight) s.changed = null;
      else mirrors.states.delete(competitionId);
    },

    /** The scoring input; the returned arrays are shared between reads and must not be mutated. */
    async load(competitionId: string, w: TokenWeights): Promise<ScoringInput> {
      // Inside a write transaction the rows may not be committed yet: read them, keep nothing.
      if (ctx.inTransaction) {
        const { tasks, miners } = await readTasksAndMiners(txQuery, competitionId, w);
        const minerTasks = new PairMirror(w, await txQuery(PAIRS, [competitionId], 'pg_scoring_pairs')).entries();
        return { tasks, miners, minerTasks };
      }
      let s = mirrors.states.get(competitionId);
      if (!s)
        mirrors.states.set(
          competitionId,
          (s = { mirror: null, changed: null, version: null, peer: false, events: 0, inflight: null }),
        );
      for (let f = s.inflight; f; f = s.inflight) {
        if (f.events === s.events && sameWeights(f.weights, w)) return f.promise;
        await f.promise.catch(() => undefined);
      }
      const state = s;
      const inflight = { weights: { ...w }, events: s.events, promise: read(s, competitionId, w) };
      s.inflight = inflight;
      // Registered first, so it runs before any waiter's handler.
      const done = () => {
        if (state.inflight === inflight) state.inflight = null;
      };
      inflight.promise.then(done, done);
      return inflight.promise;
    },
  };
  return repo;
}
