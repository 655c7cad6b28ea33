// The bytes of the views services return (src/services/scores/views.ts): each view serialized once
// per version and key, with its strong ETag (./body.ts; its compressed forms: ./representation.ts).
// A version's bodies live as long as the version (its scores' cache entry); the reads every
// dashboard polls (`kept: 'always'`) are held by it alone, the others (a miner's, a task's,
// coverage pages) within a byte budget over every competition (./recentBodies.ts), least recently
// read going first. Unbounded, a dashboard walking every miner's breakdown would keep them all
// until the next write: 256 bodies of about 100 kB at the reference size, 1,024 at 4x.
//
// How a write reaches these bytes: the store's write event drops the competition's scores
// (src/services/scores/cache.ts), which then calls `drop` here (`onDrop`); the dropped version's
// bodies go with it. Nothing else invalidates them. A competition that gives its state back
// (src/services/scores/release.ts, which counts these bytes through `bytes`) drops them the same way,
// but its whole leaderboard, kept for the same scores until a write (`lastingBodies`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RankedList, View } from '../services/scores/views.js';
import { Settled, chain, type Maybe } from '../services/settled.js';
import { jsonBody, type Body } from './body.js';
import { leaderboardPages, type Fragments, type LeaderboardPages } from './leaderboardPages.js';
import { recentBodies } from './recentBodies.js';
import { encodeAhead, formBytes, sendBody } from './representation.js';

/** Bytes of the budgeted bodies kept over every competition. */
const KEPT_BODY_BYTES = 8 * 1024 * 1024;
/**
 * Bytes of the whole leaderboards kept across their competitions' releases, with their compressed
 * forms, over every competition: a dozen at the reference size (some 170 kB each), the least
 * recently released going first.
 */
export const LASTING_BYTES = 4 * 1024 * 1024;

export function viewBodies(budgetBytes = KEPT_BODY_BYTES, lastingBytes = LASTING_BYTES) {
  const recent = recentBodies<Settled<Body>>(budgetBytes);
  const byVersion = new WeakMap<object, Map<string, Settled<Body>>>();
  /** A ranked list's whole body and pages, per version, and the list they are made of. */
  const lists = new WeakMap<object, Maybe<LeaderboardPages>>();
  const rankedOf = new WeakMap<object, RankedList>();
  const lasting = lastingBodies(lastingBytes);
  /** The versions with bodies made, per competition, until its `drop`: what `bytes` counts. */
  const versions = new Map<string, Set<object>>();
  /**
   * Per competition, the serialized entries of the leaderboard made last, and its version: the
   * next one, after a write, reuses the entries that did not change. Kept across a write's `drop`,
   * given back with a release.
   */
  const carried = new Map<string, { fragments: Fragments; version: object }>();
  function made(view: View): void {
    let held = versions.get(view.competitionId);
    if (!held) versions.set(view.competitionId, (held = new Set()));
    held.add(view.version);
  }

  type ListView = View & { page: NonNullable<View['page']> };
  function list(view: ListView): Maybe<Body> {
    let pages = lists.get(view.version);
    if (!pages) {
      const { competitionId, version } = view;
      const keep = (fragments: Fragments) => {
        if (versions.get(competitionId)?.has(version)) carried.set(competitionId, { fragments, version });
      };
      pages = chain(view.value() as Maybe<RankedList>, (ranked) => {
        rankedOf.set(version, ranked);
        // The same list as one released with its competition: its whole body as it was kept then.
        const kept = lasting.take(ranked);
        return leaderboardPages(
          ranked.head,
          ranked.entries,
          carried.get(competitionId)?.fragments,
          keep,
          kept,
          ranked.shown,
        );
      });
      lists.set(view.version, pages);
      made(view);
      if (pages instanceof Promise) {
        const made = pages;
        made.then(
          (p) => lists.get(view.version) === made && lists.set(view.version, p),
          () => lists.get(view.version) === made && lists.delete(view.version),
        );
      }
    }
    return chain(pages, (p) => p.read(view.page));
  }

  /** The body of a view: the kept one, else made now (and kept). */
  function body(view: View): Maybe<Body> {
    if (view.page) return list(view as ListView);
    let bodies = byVersion.get(view.version);
    if (!bodies) {
      byVersion.set(view.version, (bodies = new Map<string, Settled<Body>>()));
      made(view);
    }
    const owner = bodies;
    const { key } = view;
    let kept = owner.get(key);
    if (kept) recent.touch(kept);
    else {
      const made = new Settled(Promise.resolve().then(view.value).then(jsonBody));
      made.promise.catch(() => {
        if (owner.get(key) === made) owner.delete(key);
      });
      owner.set(key, (kept = made));
      if (view.kept === 'recent')
        void made.promise.then(
          (b) => recent.add(view.competitionId, owner, key, made, b),
          () => {},
        );
    }
    return kept.get();
  }

  return {
    body,
    /** Makes a view's body and its kept compressed forms (./representation.ts `encodeAhead`). */
    async ahead(view: View): Promise<void> {
      await encodeAhead(await body(view));
    },
    /** The body of a view if it is made already (or kept across a release); serializes nothing. */
    bodyNow(view: View): Body | undefined {
      if (view.page) {
        let pages = lists.get(view.version);
        // A whole list kept across its competition's release is made: its pages are set up around it.
        if (pages === undefined && lasting.holds(view.value())) {
          void list(view as ListView);
          pages = lists.get(view.version);
        }
        return pages === undefined || pages instanceof Promise ? undefined : pages.read(view.page);
      }
      const made = byVersion.get(view.version)?.get(view.key)?.get();
      return made instanceof Promise ? undefined : made;
    },
    /** Sends a view's body (./representation.ts `sendBody`): at once when it is kept, else once it is made. */
    send(request: FastifyRequest, reply: FastifyReply, pending: Maybe<View>): Promise<void> | undefined {
      const made = chain(pending, body);
      return sendBody(request, reply, made);
    },
    /**
     * Bytes of the bodies made from a competition's scores and kept: each body, the leaderboard's
     * entries and pages (./leaderboardPages.ts `bytes`); 0 after its `drop` until the next read.
     */
    bytes(competitionId: string): number {
      const held = carried.get(competitionId);
      let n = 0;
      if (held && !versions.get(competitionId)?.has(held.version))
        for (const b of [...held.fragments.json, ...held.fragments.pieces]) n += b?.length ?? 0;
      for (const version of versions.get(competitionId) ?? []) {
        for (const kept of byVersion.get(version)?.values() ?? []) {
          const b = kept.get();
          if (!(b instanceof Promise)) n += b.bytes.length;
        }
        const pages = lists.get(version);
        if (pages !== undefined && !(pages instanceof Promise)) n += pages.bytes();
      }
      return n;
    },
    /**
     * Drops a competition's bodies: a write or a release dropped the scores they are made from. A
     * release (`released`) also drops the leaderboard entries kept for the next leaderboard.
     */
    drop(competitionId: string, released = false): void {
      if (released) carried.delete(competitionId);
      // A write ends what any kept list shows; a release keeps each whole list made, for the same scores.
      else lasting.drop(competitionId);
      recent.drop(competitionId);
      for (const version of versions.get(competitionId) ?? []) {
        const pages = lists.get(version);
        const ranked = rankedOf.get(version);
        const whole = released && ranked && pages && !(pages instanceof Promise) ? pages.lasting() : undefined;
        if (whole) lasting.keep(competitionId, ranked!, whole);
        byVersion.delete(version);
        lists.delete(version);
      }
      versions.delete(competitionId);
    },
  };
}

export type ViewBodies = ReturnType<typeof viewBodies>;

/**
 * The whole leaderboards kept across their competitions' releases (src/services/scores/release.ts),
 * within `budgetBytes` over every competition (their compressed forms counted), apart from the memory
 * budget: a release gives back the pairs and what is made from them (megabytes), and the next read
 * of the competition, a dashboard's or a crawler's, is then answered from these bytes rather than
 * from serializing, hashing and compressing the list again (and the garbage that leaves). Each is
 * found by the list it was made of (src/services/scores/reads.ts keeps one per scores, which the
 * release keeps), so it answers only the same scores; a write to the competition drops it.
 */
function lastingBodies(budgetBytes: number) {
  /** Least recently kept first. */
  const kept = new Map<RankedList, { competitionId: string; body: Body; bytes: number }>();
  let total = 0;
  const forget = (ranked: RankedList) => {
    total -= kept.get(ranked)?.bytes ?? 0;
    kept.delete(ranked);
  };
  return {
    keep(competitionId: string, ranked: RankedList, body: Body): void {
      forget(ranked);
      const bytes = body.bytes.length + formBytes(body);
      kept.set(ranked, { competitionId, body, bytes });
      total += bytes;
      for (const oldest of kept.keys()) {
        if (total <= budgetBytes) break;
        forget(oldest);
      }
    },
    /** Whether a body is kept for this list (`value` as a view gives it). */
    holds: (value: unknown): boolean => kept.has(value as RankedList),
    /** The body kept for this list, handed over (its pages hold it from now on). */
    take(ranked: RankedList): Body | undefined {
      const body = kept.get(ranked)?.body;
      forget(ranked);
      return body;
    },
    drop(competitionId: string): void {
      for (const [ranked, k] of kept) if (k.competitionId === competitionId) forget(ranked);
    },
  };
}
