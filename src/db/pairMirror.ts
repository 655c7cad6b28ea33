// A competition's (task, miner) aggregates kept in memory between score reads (both engines'
// scoringInput): an entry per pair, in the order a table read and the later changes made them
// (a pair read again keeps its place, a new one goes last), so a fresh read and an updated
// mirror hand the scoring core the same list.
//
// Memory is the point of its shape: every row a driver returns carries its own copy of the task
// id and the hotkey, and a string key per pair is a third one. At 4x the reference competition
// (1,024 miners x 300 tasks) those copies would be most of the live heap. Here each
// distinct name is kept once (later rows point to the first copy) and a pair's key is a number
// made of the two names' indexes.
import type { EntryChanges } from '../scoring/scoreIncrementally.js';
import type { EntryList, MinerTaskSummary, TokenWeights } from '../scoring/types.js';
import { ChunkedBuffer, type ChunkedList } from './chunkedList.js';
import { minerTaskEntry } from './scoringRows.js';

/** Names per mirror before the numeric keys could collide: far beyond any competition. */
const NAMES = 2 ** 26;
/** Changes `changes` tells at most: beyond them comparing the two lists is as cheap. */
const LOGGED = 512;

export class PairMirror {
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  /** Pair key to its entry's place in `list`, in the order of the list. */
  private readonly at = new Map<number, number>();
  /**
   * The entries in order; places of removed pairs are holes until `entries` closes them. A list
   * handed out shares its chunks with it, which copies a chunk before changing it
   * (./chunkedList.ts).
   */
  private list = new ChunkedBuffer<MinerTaskSummary | undefined>();
  /** The list handed out last, while nothing changed since. */
  private handed: ChunkedList<MinerTaskSummary> | null = null;
  private holes = false;
  /** The changes since the list last handed out, while they are few; null otherwise. */
  private log: {
    from: EntryList<MinerTaskSummary>;
    added: Set<MinerTaskSummary>;
    gone: MinerTaskSummary[];
  } | null = null;
  private last: EntryChanges | undefined;

  /** `rows` as scoringInput's PAIRS query reads them (task_id, hotkey, runs, resolved, token sums). */
  constructor(
    readonly weights: TokenWeights,
    rows: Iterable<unknown[]>,
  ) {
    for (const row of rows) this.put(row);
  }

  /** Pairs held. */
  get size(): number {
    return this.at.size;
  }

  /** The entries, in order; shared between reads until the next change, never to be mutated. */
  entries(): EntryList<MinerTaskSummary> {
    if (this.holes) {
      const list = new ChunkedBuffer<MinerTaskSummary | undefined>();
      for (const [key, i] of this.at) {
        this.at.set(key, list.length);
        list.push(this.list.get(i));
      }
      this.list = list;
      this.holes = false;
    }
    if (!this.handed) {
      // No hole is left: every place holds an entry.
      const list = this.list.view() as ChunkedList<MinerTaskSummary>;
      const log = this.log;
      this.last = log ? { from: log.from, to: list, added: [...log.added], gone: log.gone } : undefined;
      this.log = { from: list, added: new Set(), gone: [] };
      this.handed = list;
    }
    return this.handed;
  }

  /**
   * What changed from the list handed out before the current one to the current one, when every
   * change since went through this mirror and there were few; undefined otherwise, and once told
   * (the mirror then holds no list but its current one).
   */
  changes(): EntryChanges | undefined {
    const list = this.entries();
    const last = this.last;
    this.last = undefined;
    return last?.to === list ? last : undefined;
  }

  /** Notes a change for `changes`; past a few hundred the log is dropped (the caller compares the lists). */
  private note(added: MinerTaskSummary | undefined, gone: MinerTaskSummary | undefined): void {
    const log = this.log;
    if (!log) return;
    // An entry added since and replaced or removed again was never in the list handed out.
    if (gone && !log.added.delete(gone)) log.gone.push(gone);
    if (added) log.added.add(added);
    if (log.added.size + log.gone.length > LOGGED) this.log = null;
  }

  /**
   * Sets a pair from its row: in place when known, last when new. A row read again as it was
   * keeps its entry, so the list handed out stays the same, and so do the scores of the pair (a
   * row is read again whenever it may have changed: another process's stamp, an event of a write
   * that rolled back).
   */
  put(row: unknown[]): void {
    const entry = this.entry(row);
    const key = this.key(entry.taskId, entry.hotkey);
    const list = this.list;
    const i = this.at.get(key);
    if (i === undefined) {
      this.handed = null;
      this.at.set(key, list.length);
      list.push(entry);
      this.note(entry, undefined);
    } else {
      const was = list.get(i)!;
      if (
        was.runs === entry.runs &&
        was.resolved === entry.resolved &&
        was.tokenSum === entry.tokenSum &&
        was.tokenCount === entry.tokenCount
      )
        return;
      this.handed = null;
      this.note(entry, was);
      list.set(i, entry);
    }
  }

  /**
   * The entries as they would be after `put` of each pair read again (its row) and `remove` of each
   * gone (no row), in the same order, leaving this mirror as it is: what a transaction that may
   * still roll back sees.
   */
  withChanges(
    changes: Iterable<{ taskId: string; hotkey: string; row: unknown[] | undefined }>,
  ): EntryList<MinerTaskSummary> {
    const replaced = new Map<number, MinerTaskSummary | null>();
    const added = new Map<number, MinerTaskSummary>();
    for (const { taskId, hotkey, row } of changes) {
      const key = this.key(taskId, hotkey);
      const entry = row ? this.entry(row) : null;
      if (this.at.has(key)) replaced.set(key, entry);
      else if (entry) added.set(key, entry);
      else added.delete(key);
    }
    if (replaced.size === 0 && added.size === 0) return this.entries();
    const out: MinerTaskSummary[] = [];
    for (const [key, i] of this.at) {
      const now = replaced.get(key);
      if (now === undefined) out.push(this.list.get(i)!);
      else if (now) out.push(now);
    }
    for (const entry of added.values()) out.push(entry);
    return out;
  }

  private entry(row: unknown[]): MinerTaskSummary {
    const entry = minerTaskEntry(row, this.weights);
    entry.taskId = this.name(entry.taskId);
    entry.hotkey = this.name(entry.hotkey);
    return entry;
  }

  remove(taskId: string, hotkey: string): void {
    const key = this.key(taskId, hotkey);
    const i = this.at.get(key);
    if (i === undefined) return;
    this.handed = null;
    this.note(undefined, this.list.get(i));
    this.list.set(i, undefined);
    this.at.delete(key);
    this.holes = true;
  }

  private name(s: string): string {
    const i = this.index.get(s);
    return i === undefined ? s : this.names[i]!;
  }

  private key(taskId: string, hotkey: string): number {
    return this.id(taskId) * NAMES + this.id(hotkey);
  }

  private id(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      if (this.names.length >= NAMES) throw new Error(`more than ${NAMES} task ids and hotkeys in one mirror`);
      this.index.set(s, (i = this.names.length));
      this.names.push(s);
    }
    return i;
  }
}
