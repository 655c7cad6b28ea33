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
import type { MinerTaskSummary, TokenWeights } from '../scoring/types.js';
import { minerTaskEntry } from './scoringRows.js';

/** Names per mirror before the numeric keys could collide: far beyond any competition. */
const NAMES = 2 ** 26;

export class PairMirror {
  private readonly index = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly byPair = new Map<number, MinerTaskSummary>();
  private list: MinerTaskSummary[] | null = null;

  /** `rows` as scoringInput's PAIRS query reads them (task_id, hotkey, runs, resolved, token sums). */
  constructor(
    readonly weights: TokenWeights,
    rows: Iterable<unknown[]>,
  ) {
    for (const row of rows) this.put(row);
  }

  /** Pairs held. */
  get size(): number {
    return this.byPair.size;
  }

  /** The entries, in order; shared between reads until the next change, never to be mutated. */
  entries(): MinerTaskSummary[] {
    return (this.list ??= [...this.byPair.values()]);
  }

  /** Sets a pair from its row: in place when known, last when new. */
  put(row: unknown[]): void {
    const entry = this.entry(row);
    this.byPair.set(this.key(entry.taskId, entry.hotkey), entry);
    this.list = null;
  }

  /**
   * The entries as they would be after `put` of each pair read again (its row) and `remove` of each
   * gone (no row), in the same order, leaving this mirror as it is: what a transaction that may
   * still roll back sees.
   */
  withChanges(changes: Iterable<{ taskId: string; hotkey: string; row: unknown[] | undefined }>): MinerTaskSummary[] {
    const replaced = new Map<number, MinerTaskSummary | null>();
    const added = new Map<number, MinerTaskSummary>();
    for (const { taskId, hotkey, row } of changes) {
      const key = this.key(taskId, hotkey);
      const entry = row ? this.entry(row) : null;
      if (this.byPair.has(key)) replaced.set(key, entry);
      else if (entry) added.set(key, entry);
      else added.delete(key);
    }
    if (replaced.size === 0 && added.size === 0) return this.entries();
    const out: MinerTaskSummary[] = [];
    for (const [key, entry] of this.byPair) {
      const now = replaced.get(key);
      if (now === undefined) out.push(entry);
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
    if (this.byPair.delete(this.key(taskId, hotkey))) this.list = null;
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
