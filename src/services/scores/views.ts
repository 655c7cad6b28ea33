// What a score read returns: a view of the kept scores, not bytes. The HTTP layer
// (src/http/viewBodies.ts) serializes a view once per version and key and keeps the bytes; a
// write ends the version (./cache.ts drops the scores, and tells `onDrop`'s listeners).
import type { Maybe } from '../settled.js';

export interface View {
  /** The competition whose writes end the view. */
  competitionId: string;
  /** The same object for as long as what the view shows is current (its scores' cache entry). */
  version: object;
  /** The read and its arguments: one body per version and key. */
  key: string;
  /** `always`: kept as long as its version (the few reads every dashboard polls); else within a byte budget. */
  kept: 'always' | 'recent';
  /** The value to serialize; asked for only when no body of this version and key is kept. */
  value: () => Maybe<unknown>;
  /** For a ranked list (the leaderboard): the part of it asked for; `value` then gives a `RankedList`. */
  page?: ListPage;
}

/** A ranked list as a paged read shows it: the fields around the list, and its entries in rank order. */
export interface RankedList {
  head: Record<string, unknown>;
  /**
   * The entries in rank order, each shown as `shown` makes it (itself without): an entry the list
   * before held too (the same object) shows the same, so its bytes are taken as they were.
   */
  entries: readonly { hotkey: string }[];
  shown?: (entry: { hotkey: string }) => unknown;
}

/** A part of a ranked list (API.md 1.1: `?limit=&offset=&hotkeys=`). */
export interface ListPage {
  /** Entries to skip, from the start of the (chosen) list. */
  offset: number;
  /** Entries at most; absent: every entry from `offset` on. */
  limit?: number;
  /** Only these miners, in rank order; hotkeys with no entry are left out. */
  hotkeys?: readonly string[];
}
