// The leaderboard read and its pages (API.md 1.1: `?limit=&offset=&hotkeys=`). One instance per
// view version (./viewBodies.ts), so it is dropped with its scores on the next write.
//
// The whole list and every page are put together from each entry's JSON, serialized once (or taken
// from the list a write replaced, where the entry is the same): a page costs a copy of its
// entries' bytes and a digest, never a JSON.stringify of the list. The most recent pages are kept whole (bytes, ETag,
// compressed forms), so a page read again is as cheap as the whole list. The whole list's gzip form
// is put together the same way, from deflated pieces of `PIECE_ENTRIES` entries (./gzipPieces.ts),
// each taken from the list a write replaced when its entries are the same bytes.
import type { ListPage } from '../services/scores/views.js';
import { bytesBody, type Body } from './body.js';
import { deflatePiece, gzipFromPieces } from './gzipPieces.js';

/** Pages kept per scores; a page read after these many others is put together again. */
const KEPT_PAGES = 32;
const COMMA = 0x2c; // ','
const END = Buffer.from(']}');
/**
 * Entries per deflated piece: about 15 kB of JSON at the reference competition. Compressed apart,
 * pieces lose the matches across them (the gzip form is a few % larger than the whole body's at
 * the same level), and each costs a zlib stream of its own: pieces of one entry would cost several
 * times the whole body compressed at once, pieces of 32 entries a little less than it.
 */
export const PIECE_ENTRIES = 32;

/** Each entry of a list serialized, and where each hotkey is: what the next list made may reuse. */
export interface Fragments {
  readonly entries: readonly Entry[];
  readonly json: readonly Buffer[];
  readonly index: ReadonlyMap<string, number>;
  /** The whole list's deflated pieces, entries `k * PIECE_ENTRIES` on, as they are made. */
  readonly pieces: (Buffer | undefined)[];
}

type Entry = { hotkey: string };

/**
 * Keys of the object being compared at each depth of `sameJson`, reused from call to call: a
 * cold read compares every entry of the list a write replaced, and `Object.keys` of each object
 * in them made some ten thousand arrays a read at 1,024 miners.
 */
const keysAt: string[][] = [];

/** True when two JSON values serialize alike: the same keys in the same order, the same primitives. */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  // for-in walks the keys from V8's per-shape cache without making an array, and reads `a[k]` in
  // its loop by that cache; the objects compared are JSON data, whose prototype (Object's, or
  // none) has no enumerable key.
  const kb = (keysAt[depth] ??= []);
  let n = 0;
  for (const k in b) kb[n++] = k;
  let i = 0;
  for (const k in a) {
    // Deeper calls use the next depth's keys: this depth's stay as they are.
    if (i >= n || k !== kb[i++]) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return i === n;
}

/**
 * `entries`' list and pages. `before`: the fragments of an earlier list of the same competition
 * (the one a write replaced); an entry equal to its miner's entry there reuses its bytes, so after a
 * write only the entries that changed are serialized. `made` is told of this list's fragments once
 * they are made.
 */
export function leaderboardPages(
  head: Record<string, unknown>,
  entries: readonly Entry[],
  before?: Fragments,
  made?: (fragments: Fragments) => void,
  /** The whole list's body, kept from pages of the same entries (`lasting`): read as it is. */
  keptWhole?: Body,
  /** What an entry shows (serialized), when not the entry itself. */
  shown?: (e: Entry) => unknown,
) {
  let whole: Body | undefined = keptWhole;
  let serialized: Fragments | undefined;
  const kept = new Map<string, Body>();

  function fragment(e: Entry): Buffer {
    // The same object (an unchanged miner's score) at once; else compared by value, which for
    // entries shown through `shown` compares what they hold beside what they show too.
    const at = before?.index.get(e.hotkey);
    if (at !== undefined && sameJson(before!.entries[at], e)) return before!.json[at]!;
    return Buffer.from(JSON.stringify(shown ? shown(e) : e), 'utf8');
  }

  function parts(): Fragments {
    if (!serialized) {
      // Filled in a loop: a pair array an entry was some thousand allocations a read at 4x.
      const index = new Map<string, number>();
      for (let i = 0; i < entries.length; i++) index.set(entries[i]!.hotkey, i);
      serialized = { entries, json: entries.map(fragment), index, pieces: [] };
      made?.(serialized);
    }
    return serialized;
  }

  /** The body's bytes up to its first entry: `total` before `miners`, key for key as the whole list's. */
  function opening(total: number): Buffer {
    const start = JSON.stringify({ ...head, total });
    return Buffer.from(`${start.slice(0, -1)},"miners":[`, 'utf8');
  }

  /** The body of `total` entries, `chosen` (positions in the whole list), or every one in order. */
  function assemble(total: number, chosen?: readonly number[]): Body {
    const { json } = parts();
    const count = chosen ? chosen.length : json.length;
    const start = opening(total);
    let size = start.length + END.length + Math.max(0, count - 1);
    for (let n = 0; n < count; n++) size += json[chosen ? chosen[n]! : n]!.length;
    // One copy a fragment, the commas written in place: Buffer.concat of the fragments and a comma
    // buffer between each two was twice the copies, a native call each (1.4 ms a read at 4x).
    const bytes = Buffer.allocUnsafe(size);
    let at = start.copy(bytes, 0);
    for (let n = 0; n < count; n++) {
      if (n > 0) bytes[at++] = COMMA;
      const fragment = json[chosen ? chosen[n]! : n]!;
      bytes.set(fragment, at);
      at += fragment.length;
    }
    END.copy(bytes, at);
    return bytesBody(bytes);
  }

  /**
   * True when piece `k` of the whole list (entries `k * PIECE_ENTRIES` on, a comma before each
   * but the list's first) holds the same entry bytes as `before`'s at the same places.
   */
  function unchanged(k: number): boolean {
    const { json } = parts();
    const from = k * PIECE_ENTRIES;
    const to = Math.min(json.length, from + PIECE_ENTRIES);
    let same = before !== undefined && Math.min(before.json.length, from + PIECE_ENTRIES) === to;
    for (let i = from; same && i < to; i++) same = json[i] === before!.json[i];
    return same;
  }

  /** Piece `k` as `before` deflated it, when it is unchanged and `before`'s was made. */
  const keptPiece = (k: number): Buffer | undefined => (unchanged(k) ? before!.pieces[k] : undefined);

  /** Where each piece of the whole list ends in its bytes, the first starting at `startAt`. */
  function pieceEnds(startAt: number): number[] {
    const { json } = parts();
    const ends: number[] = [];
    let at = startAt;
    for (let from = 0; from < json.length; from += PIECE_ENTRIES) {
      for (let i = from; i < Math.min(json.length, from + PIECE_ENTRIES); i++) at += json[i]!.length + (i > 0 ? 1 : 0);
      ends.push(at);
    }
    return ends;
  }

  /** The whole list's gzip form, from its bytes (`whole`): each piece kept or deflated now. */
  function gzipOf(whole: Buffer, startAt: number): Buffer {
    const { pieces } = parts();
    return gzipFromPieces(whole, startAt, pieceEnds(startAt), (k, bytes) => {
      pieces[k] = keptPiece(k) ?? deflatePiece(bytes);
      return pieces[k];
    });
  }

  /** The whole list, with its gzip form made from pieces (`gzipOf`). */
  function wholeList(): Body {
    const body = assemble(entries.length);
    const startAt = opening(entries.length).length;
    const count = Math.ceil(entries.length / PIECE_ENTRIES);
    let same: number | undefined;
    body.gzipPieces = {
      make: () => gzipOf(body.bytes, startAt),
      unchanged: () => {
        if (same === undefined) {
          let n = 0;
          for (let k = 0; k < count; k++) if (unchanged(k)) n++;
          same = count === 0 ? 1 : n / count;
        }
        return same;
      },
    };
    return body;
  }

  function page({ offset, limit, hotkeys }: ListPage): Body {
    // Positions in the full list of the entries asked for, in rank order.
    const { index } = parts();
    const found = hotkeys ? [...new Set(hotkeys)].flatMap((h) => index.get(h) ?? []).sort((a, b) => a - b) : null;
    const total = found ? found.length : entries.length;
    const end = Math.min(total, offset + (limit ?? total));
    const chosen = [];
    for (let n = offset; n < end; n++) chosen.push(found ? found[n]! : n);
    return assemble(total, chosen);
  }

  return {
    /** Bytes kept: the whole list, its entries' JSON and the recent pages. */
    bytes(): number {
      let n = whole?.bytes.length ?? 0;
      for (const b of serialized?.json ?? []) n += b.length;
      for (const b of serialized?.pieces ?? []) n += b?.length ?? 0;
      for (const b of kept.values()) n += b.bytes.length;
      return n;
    },

    /**
     * The whole list's body, if made, as it may outlive these pages (kept across a release:
     * ./viewBodies.ts): its gzip pieces are then made again from its own bytes (the same bytes as
     * before: a piece is a function of its entries' bytes), so it holds neither the entries nor
     * their fragments. The same object (its compressed forms are kept by it: ./representation.ts).
     */
    lasting(): Body | undefined {
      if (!whole || whole === keptWhole || !whole.gzipPieces) return whole;
      const { bytes } = whole;
      const startAt = opening(entries.length).length;
      const ends = pieceEnds(startAt);
      whole.gzipPieces = piecesOfBytes(bytes, startAt, ends, whole.gzipPieces.unchanged());
      return whole;
    },

    read(p: ListPage): Body {
      const all = !p.hotkeys && p.offset === 0 && (p.limit ?? Infinity) >= entries.length;
      if (all) return (whole ??= wholeList());
      const key = `${p.offset}:${p.limit ?? ''}:${p.hotkeys ? [...new Set(p.hotkeys)].sort().join(',') : '*'}`;
      let body = kept.get(key);
      if (body) kept.delete(key);
      else body = page(p);
      kept.set(key, body); // most recent last
      if (kept.size > KEPT_PAGES) kept.delete(kept.keys().next().value!);
      return body;
    },
  };
}

export type LeaderboardPages = ReturnType<typeof leaderboardPages>;

/**
 * A whole list's gzip pieces made from its bytes alone (`lasting`). Out here, not in
 * `leaderboardPages`: a closure made there would hold that call's scope (the entries, their
 * fragments, the callback holding the scores' version and through it the input's pairs) for as long
 * as the body is kept.
 */
function piecesOfBytes(bytes: Buffer, startAt: number, ends: readonly number[], same: number): Body['gzipPieces'] {
  return {
    make: () => gzipFromPieces(bytes, startAt, ends, (_, piece) => deflatePiece(piece)),
    unchanged: () => same,
  };
}
