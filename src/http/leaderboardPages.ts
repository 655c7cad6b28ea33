// The leaderboard read and its pages (API.md 1.1: `?limit=&offset=&hotkeys=`). One instance per
// view version (./viewBodies.ts), so it is dropped with its scores on the next write.
//
// The whole list is serialized once, as before. A page is put together from each entry's JSON,
// serialized once on the first partial read: a page costs a copy of its entries' bytes and a
// digest, never a JSON.stringify of the list. The most recent pages are kept whole (bytes, ETag,
// compressed forms), so a page read again is as cheap as the whole list.
import type { ListPage } from '../services/scores/views.js';
import { bytesBody, jsonBody, type Body } from './body.js';

/** Pages kept per scores; a page read after these many others is put together again. */
const KEPT_PAGES = 32;
const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

export function leaderboardPages(head: Record<string, unknown>, entries: readonly { hotkey: string }[]) {
  let whole: Body | undefined;
  let serialized: { json: Buffer[]; index: Map<string, number> } | undefined;
  const kept = new Map<string, Body>();

  function parts() {
    return (serialized ??= {
      json: entries.map((e) => Buffer.from(JSON.stringify(e), 'utf8')),
      index: new Map(entries.map((e, i) => [e.hotkey, i])),
    });
  }

  /** The body with `total` before `miners`, key for key as the whole list's. */
  function assemble(total: number, chosen: readonly number[]): Body {
    const { json } = parts();
    const start = JSON.stringify({ ...head, total });
    const pieces: Buffer[] = [Buffer.from(`${start.slice(0, -1)},"miners":[`, 'utf8')];
    chosen.forEach((i, n) => {
      if (n > 0) pieces.push(COMMA);
      pieces.push(json[i]!);
    });
    pieces.push(END);
    return bytesBody(Buffer.concat(pieces));
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
      for (const b of kept.values()) n += b.bytes.length;
      return n;
    },

    read(p: ListPage): Body {
      const all = !p.hotkeys && p.offset === 0 && (p.limit ?? Infinity) >= entries.length;
      if (all) return (whole ??= jsonBody({ ...head, total: entries.length, miners: entries }));
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
