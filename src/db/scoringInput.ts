// Reads a competition's aggregates as the scoring core's plain input. Raw statements return
// arrays, not objects: this is the one read on the cold-score path and it touches every
// (task, miner) pair.
//
// The (task, miner) entries are kept in memory per competition once read, and a later read
// re-reads only the rows that writes reported as changed (src/db/events.ts): materializing every
// row of miner_tasks again after each write, and collecting it, would be most of a cold score read.
// Tasks and miners are kept too: the tasks are read again after a write to them (a baseline run's
// among them: a few hundred rows, whatever the number of miners), the miners after a write to them
// or a run of a hotkey not among them (its first run adds its row).
import type { Db } from './client.js';
import { writeListeners, type WriteEvent } from './events.js';
import { PairMirror } from './pairMirror.js';
import { minerEntry, minerTaskEntry, taskEntry } from './scoringRows.js';
import type { EntryChanges } from '../scoring/scoreIncrementally.js';
import type { EntryList, MinerTaskSummary, ScoringMiner, ScoringTask, TokenWeights } from '../scoring/types.js';
import type { ScoringInput } from './contract.js';

/** Rows per step of `prepare`: a step holds the event loop a few milliseconds, so requests go on between steps. */
const PAGE_ROWS = 1024;

/** A competition's tasks and miners as last read, and what changed since. */
interface Lists {
  weights: TokenWeights;
  /** Null: read them again. */
  tasks: ScoringTask[] | null;
  miners: ScoringMiner[] | null;
  hotkeys: ReadonlySet<string>;
}

interface Mirror {
  pairs: PairMirror;
  /** Pairs changed since the last read; null after a rebuild: read everything again. */
  changed: Set<string> | null;
}

export function scoringInputRepo(db: Db) {
  const c = db.$client;
  const taskRows = c
    .prepare(
      `SELECT id, stage, complexity, planned_runs, baseline_runs, baseline_resolved,
      baseline_token_count, baseline_input_sum, baseline_cached_sum, baseline_output_sum
    FROM tasks WHERE competition_id = ?`,
    )
    .raw();
  const columns = 'task_id, hotkey, runs, resolved, token_count, input_sum, cached_sum, output_sum';
  const minerTaskRows = c.prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ?`).raw();
  // The same rows in key order, a page at a time (`prepare`).
  const firstPage = c
    .prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ? ORDER BY hotkey, task_id LIMIT ${PAGE_ROWS}`)
    .raw();
  const nextPage = c
    .prepare(
      `SELECT ${columns} FROM miner_tasks WHERE competition_id = ? AND (hotkey, task_id) > (?, ?)
       ORDER BY hotkey, task_id LIMIT ${PAGE_ROWS}`,
    )
    .raw();
  const minerTaskRow = c
    .prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ? AND task_id = ? AND hotkey = ?`)
    .raw();
  // One miner's pairs: a range of the primary key (competition, hotkey, task).
  const ownPairs = c
    .prepare(`SELECT ${columns} FROM miner_tasks WHERE competition_id = ? AND hotkey = ? ORDER BY task_id`)
    .raw();
  const minerRows = c.prepare('SELECT hotkey, excluded FROM miners WHERE competition_id = ?').raw();
  const lists = new Map<string, Lists>();
  const mirrors = new Map<string, Mirror>();
  /** Mirrors being filled by `prepare`, not yet read from. */
  const building = new Map<string, Mirror>();
  const tell = (mirror: Mirror | undefined, event: WriteEvent) => {
    if (!mirror) return;
    // 'peer' is PostgreSQL's (another process wrote); here, should one come, everything is read again.
    if (event.kind === 'rebuild' || event.kind === 'peer') mirror.changed = null;
    else if (event.kind === 'pair') mirror.changed?.add(event.pair);
  };
  const tellLists = (event: WriteEvent) => {
    const kept = lists.get(event.competitionId);
    if (!kept) return;
    if (event.kind === 'tasks') kept.tasks = null;
    else if (event.kind === 'miners') kept.miners = null;
    else if (event.kind === 'pair') {
      if (!kept.hotkeys.has(event.pair.slice(event.pair.indexOf('\u0000') + 1))) kept.miners = null;
    } else if (event.kind !== 'metagraph' && event.kind !== 'runs') lists.delete(event.competitionId);
  };
  writeListeners(db).add((event) => {
    tell(mirrors.get(event.competitionId), event);
    tell(building.get(event.competitionId), event);
    tellLists(event);
  });

  const sameWeights = (a: TokenWeights, b: TokenWeights) =>
    a.input === b.input && a.cachedInput === b.cachedInput && a.output === b.output;

  /** The changed pairs read again, as this connection sees them now. */
  function* reread(competitionId: string, changed: Set<string>) {
    for (const key of changed) {
      const [taskId, hotkey] = key.split('\u0000') as [string, string];
      yield { taskId, hotkey, row: minerTaskRow.get(competitionId, taskId, hotkey) as unknown[] | undefined };
    }
  }

  /** Brings a mirror up to date: its changed pairs read again and applied, the set emptied. */
  function catchUp(competitionId: string, pairs: PairMirror, changed: Set<string>): void {
    for (const { taskId, hotkey, row } of reread(competitionId, changed)) {
      if (row) pairs.put(row);
      else pairs.remove(taskId, hotkey);
    }
    changed.clear();
  }

  const readTasks = (competitionId: string, w: TokenWeights) =>
    (taskRows.all(competitionId) as unknown[][]).map((r) => taskEntry(r, w));
  const readMiners = (competitionId: string) => (minerRows.all(competitionId) as unknown[][]).map(minerEntry);

  /**
   * Tasks and miners: kept per competition and brought up to date (`tellLists`). Inside a write
   * transaction, read whole and not kept: its changes may not be committed yet.
   */
  function tasksAndMiners(competitionId: string, w: TokenWeights): { tasks: ScoringTask[]; miners: ScoringMiner[] } {
    if (c.inTransaction) return { tasks: readTasks(competitionId, w), miners: readMiners(competitionId) };
    let kept = lists.get(competitionId);
    if (!kept || !sameWeights(kept.weights, w)) {
      kept = { weights: { ...w }, tasks: null, miners: null, hotkeys: new Set() };
      lists.set(competitionId, kept);
    }
    kept.tasks ??= readTasks(competitionId, w);
    if (!kept.miners) {
      kept.miners = readMiners(competitionId);
      kept.hotkeys = new Set(kept.miners.map((m) => m.hotkey));
    }
    return { tasks: kept.tasks, miners: kept.miners };
  }

  function minerTasks(competitionId: string, w: TokenWeights): EntryList<MinerTaskSummary> {
    const mirror = mirrors.get(competitionId);
    const current = mirror?.changed && sameWeights(mirror.pairs.weights, w) ? mirror : null;
    const changed = current?.changed;

    // Inside a write transaction the changed rows may not be committed yet (the events of its own
    // writes are in the changed set already): read them, and leave the mirror as it is, since the
    // transaction may roll back. Without a mirror, read every row and keep nothing. A snapshot
    // reads its scores so, which is why it takes the kept scores when they come from its very
    // input (src/services/scores/fresh.ts): a whole read holds the event loop.
    if (c.inTransaction)
      return current && changed
        ? current.pairs.withChanges(reread(competitionId, changed))
        : new PairMirror(w, minerTaskRows.iterate(competitionId) as IterableIterator<unknown[]>).entries();

    if (current && changed) {
      catchUp(competitionId, current.pairs, changed);
      return current.pairs.entries();
    }
    // Read every row, and listen for changes from here on (synchronous: no write in between).
    const pairs = new PairMirror({ ...w }, minerTaskRows.iterate(competitionId) as IterableIterator<unknown[]>);
    mirrors.set(competitionId, { pairs, changed: new Set() });
    return pairs.entries();
  }

  return {
    /**
     * Fills the competition's in-memory pairs a page at a time, a step each, so a server that
     * starts from saved scores (src/db/savedScores.ts) answers requests while it reads (a whole
     * read at 4x the reference competition holds the event loop for over a second). Between steps
     * writes may land: their pairs are in the changed set, read again after the last page. A
     * `load` of the competition before the end reads everything itself, and this one stops; so
     * does a rebuild of its aggregates (the next load reads everything).
     */
    *prepare(competitionId: string, w: TokenWeights): Generator<number, void, unknown> {
      if (mirrors.has(competitionId) || building.has(competitionId)) return;
      const mirror: Mirror = { pairs: new PairMirror({ ...w }, []), changed: new Set() };
      building.set(competitionId, mirror);
      try {
        let rows = firstPage.all(competitionId) as unknown[][];
        for (;;) {
          for (const row of rows) mirror.pairs.put(row);
          if (rows.length < PAGE_ROWS) break;
          yield rows.length;
          if (mirrors.has(competitionId) || !mirror.changed) return;
          const last = rows[rows.length - 1]!;
          rows = nextPage.all(competitionId, last[1], last[0]) as unknown[][];
        }
        if (mirrors.has(competitionId) || !mirror.changed) return;
        catchUp(competitionId, mirror.pairs, mirror.changed);
        mirrors.set(competitionId, mirror);
      } finally {
        building.delete(competitionId);
      }
    },

    /**
     * A miner's part of the scoring input: every task and miner, and of the pairs only its own (a
     * range of the primary key: a few hundred rows, against every pair for `load`). Enough for its
     * task scores, which depend on its runs and the tasks' baselines alone. Read straight from the
     * tables; no mirror is made or used.
     */
    minerInput(
      competitionId: string,
      hotkey: string,
      w: TokenWeights,
    ): { tasks: ScoringTask[]; miners: ScoringMiner[]; minerTasks: MinerTaskSummary[] } {
      const minerTasks = (ownPairs.all(competitionId, hotkey) as unknown[][]).map((r) => minerTaskEntry(r, w));
      return { ...tasksAndMiners(competitionId, w), minerTasks };
    },

    /** Pairs held in memory for the competition (its mirror, or the one being filled): what `release` gives back. */
    held(competitionId: string): number {
      return (mirrors.get(competitionId) ?? building.get(competitionId))?.pairs.size ?? 0;
    },

    /**
     * Drops the competition's in-memory pairs (src/services/residency.ts); its next load reads
     * every row, as the first one did. A fill under way (`prepare`) stops at its next step.
     */
    release(competitionId: string): void {
      mirrors.delete(competitionId);
      lists.delete(competitionId);
      const filling = building.get(competitionId);
      if (filling) filling.changed = null;
    },

    /** The scoring input; the returned arrays are shared between reads and must not be mutated. */
    load(competitionId: string, w: TokenWeights): ScoringInput {
      return { ...tasksAndMiners(competitionId, w), minerTasks: minerTasks(competitionId, w) };
    },

    /** How the pairs `load` gave last differ from those it gave before, once (src/db/pairMirror.ts `changes`). */
    pairChanges(competitionId: string): EntryChanges | undefined {
      return mirrors.get(competitionId)?.pairs.changes();
    },
  };
}
