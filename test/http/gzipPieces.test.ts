// The gzip member put together from raw deflate pieces (src/http/gzipPieces.ts), and the whole
// leaderboard's gzip form made from pieces kept across writes (src/http/leaderboardPages.ts): each
// decodes to the plain bytes, with gzip's header and trailer right, and the same list gives the same
// bytes whichever pieces were reused (its ETag names them).
import { constants, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflatePiece, gzipMember, storedPiece } from '../../src/http/gzipPieces.js';
import { PIECE_ENTRIES, leaderboardPages, type Fragments } from '../../src/http/leaderboardPages.js';
import { LAZY_FORM_BYTES } from '../../src/http/coding.js';
import { represent } from '../../src/http/representation.js';
import { prng } from '../support/prng.js';

/** Text-like bytes: words from a small set, so pieces compress. */
function textBytes(rng: ReturnType<typeof prng>, n: number): Buffer {
  const words = ['"hotkey":', '"rank":', '0.5831', '{', '}', ',', 'miner', '"5CEsMiFfea"', String(rng.below(1e6))];
  let s = '';
  while (s.length < n) s += rng.pick(words);
  return Buffer.from(s.slice(0, n), 'utf8');
}

/** The trailer node's own gzip writes for `plain`: its CRC-32 and ISIZE, computed apart from ours. */
const trailerOf = (plain: Buffer) => gzipSync(plain).subarray(-8);

describe('gzipMember', () => {
  it('decodes to the concatenation of its parts, deflated or stored, with the right header and trailer', () => {
    const rng = prng(41);
    for (let round = 0; round < 40; round++) {
      const parts = Array.from({ length: rng.int(0, 12) }, () => textBytes(rng, rng.int(0, 3000)));
      const pieces = parts.map((p) => (rng.chance(0.3) ? storedPiece(p) : deflatePiece(p)));
      const plain = Buffer.concat(parts);
      const member = gzipMember(pieces, plain);
      expect(gunzipSync(member).equals(plain)).toBe(true);
      expect([...member.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
      expect(member.subarray(-8).equals(trailerOf(plain))).toBe(true);
      // One member: gunzip would read a second one after it as more data.
      expect(gunzipSync(Buffer.concat([member, member])).equals(Buffer.concat([plain, plain]))).toBe(true);
    }
  });

  it('an empty list of pieces is the empty body', () => {
    const member = gzipMember([], Buffer.alloc(0));
    expect(gunzipSync(member).length).toBe(0);
    expect(member.subarray(-8).equals(trailerOf(Buffer.alloc(0)))).toBe(true);
  });

  it('pieces are byte-aligned and not final: each decodes alone, none ends the stream', () => {
    const rng = prng(7);
    const big = textBytes(rng, 150_000); // more than one stored block holds
    for (const piece of [
      storedPiece(big),
      deflatePiece(big),
      storedPiece(Buffer.alloc(0)),
      deflatePiece(Buffer.alloc(0)),
    ]) {
      const alone = inflateRawSync(piece, { finishFlush: constants.Z_SYNC_FLUSH });
      expect([0, big.length]).toContain(alone.length);
      // Not final: inflating to the end wants more input.
      expect(() => inflateRawSync(piece)).toThrow(/unexpected end/);
    }
    expect(gunzipSync(gzipMember([storedPiece(big)], big)).equals(big)).toBe(true);
  });
});

describe("the whole leaderboard's gzip form", () => {
  const head = { competitionId: 'c', stages: ['evaluation'] };
  const entry = (hotkey: string, rank: number, score: number) => ({ hotkey, rank, normalizedScore: score, runs: 5 });

  it('decodes to the body over random changes, reuses the pieces of unchanged entries, and equals a fresh list', () => {
    const rng = prng(3);
    let list = Array.from({ length: 100 }, (_, i) => entry(`m${i}`, i + 1, 1 - i / 100));
    let before: Fragments | undefined;
    for (let step = 0; step < 40; step++) {
      // A few entries change, an entry now and then comes or goes.
      list = list.map((e) => (rng.chance(0.03) ? { ...e, normalizedScore: rng.next() } : e));
      if (rng.chance(0.2)) list = [...list, entry(`n${step}`, list.length + 1, 0)];
      if (rng.chance(0.2)) list = list.filter((_, i) => i !== rng.below(list.length));
      if (step % 10 === 9) list = []; // and now and then none at all
      let after: Fragments | undefined;
      const body = leaderboardPages(head, list, before, (f) => (after = f)).read({ offset: 0 });
      const gz = body.gzipPieces!.make();
      expect(gunzipSync(gz).equals(body.bytes)).toBe(true);
      expect(gz.subarray(-8).equals(trailerOf(body.bytes))).toBe(true);
      // The same bytes as a list made with nothing to reuse.
      expect(leaderboardPages(head, list).read({ offset: 0 }).gzipPieces!.make().equals(gz)).toBe(true);
      // A piece is reused exactly when its entries' bytes are the same objects at the same places.
      for (let k = 0; k < after!.pieces.length; k++) {
        const from = k * PIECE_ENTRIES;
        const to = Math.min(list.length, from + PIECE_ENTRIES);
        const same =
          before !== undefined &&
          before.pieces[k] !== undefined &&
          Math.min(before.json.length, from + PIECE_ENTRIES) === to &&
          after!.json.slice(from, to).every((b, i) => b === before!.json[from + i]);
        expect(after!.pieces[k] === before?.pieces[k], `step ${step} piece ${k}`).toBe(same);
      }
      before = after;
    }
  });

  it('one changed entry deflates one piece again', () => {
    const list = Array.from({ length: 5 * PIECE_ENTRIES }, (_, i) => entry(`m${i}`, i + 1, 1 - i / 100));
    let before: Fragments | undefined;
    leaderboardPages(head, list, undefined, (f) => (before = f))
      .read({ offset: 0 })
      .gzipPieces!.make();
    const next = list.map((e, i) => (i === 2 * PIECE_ENTRIES + 3 ? { ...e, runs: 6 } : e));
    let after: Fragments | undefined;
    leaderboardPages(head, next, before, (f) => (after = f))
      .read({ offset: 0 })
      .gzipPieces!.make();
    expect(after!.pieces.map((p, k) => p === before!.pieces[k])).toEqual([true, true, false, true, true]);
  });

  it('a whole list kept past its pages (a release) makes the same gzip form and the same share of unchanged pieces', () => {
    const list = Array.from({ length: 3 * PIECE_ENTRIES + 5 }, (_, i) => entry(`m${i}`, i + 1, 1 - i / 100));
    let before: Fragments | undefined;
    leaderboardPages(head, list, undefined, (f) => (before = f))
      .read({ offset: 0 })
      .gzipPieces!.make();
    const next = list.map((e, i) => (i === 5 ? { ...e, runs: 9 } : e));
    const pages = leaderboardPages(head, next, before);
    const body = pages.read({ offset: 0 });
    const [gz, share] = [body.gzipPieces!.make(), body.gzipPieces!.unchanged()];
    expect(pages.lasting()).toBe(body);
    expect(body.gzipPieces!.make().equals(gz)).toBe(true);
    expect(body.gzipPieces!.unchanged()).toBe(share);
    expect(share).toBe(3 / 4);
    // Pages of the same entries given it read it as it is.
    expect(leaderboardPages(head, next, undefined, undefined, body).read({ offset: 0 })).toBe(body);
  });

  it('pages other than the whole list have no pieces', () => {
    const list = Array.from({ length: 40 }, (_, i) => entry(`m${i}`, i + 1, 1 - i / 100));
    expect(leaderboardPages(head, list).read({ offset: 0, limit: 10 }).gzipPieces).toBeUndefined();
  });
});

describe('the fast form a client that prefers br and takes gzip gets', () => {
  const head = { competitionId: 'c', stages: ['evaluation'] };
  const browser = 'gzip, deflate, br, zstd';
  const entry = (i: number, runs: number) => ({ hotkey: `m${i}`, rank: i + 1, runs, note: 'x'.repeat(200) });

  it('the gzip pieces when most are unchanged since the list before (made once, then taken), else brotli', () => {
    const list = Array.from({ length: 10 * PIECE_ENTRIES }, (_, i) => entry(i, 5));
    const lists: Fragments[] = [];
    const next = (entries: typeof list) =>
      leaderboardPages(head, entries, lists.at(-1), (f) => lists.push(f)).read({ offset: 0 });
    const coding = (body: ReturnType<typeof next>) => {
      const r = represent(body, 'GET', browser, undefined);
      if (r.headers['content-encoding'] === 'gzip') expect(gunzipSync(r.payload!).equals(body.bytes)).toBe(true);
      return r.headers['content-encoding'];
    };
    // Nothing before it: brotli.
    const first = next(list);
    expect(first.bytes.length).toBeGreaterThanOrEqual(LAZY_FORM_BYTES);
    expect(first.gzipPieces!.unchanged()).toBe(0);
    expect(coding(first)).toBe('br');

    // One entry changes: 9 pieces of 10 unchanged, though none was made before: every piece is made.
    const one = list.map((e, i) => (i === 5 ? entry(i, 6) : e));
    const second = next(one);
    expect(second.gzipPieces!.unchanged()).toBe(0.9);
    expect(coding(second)).toBe('gzip');
    expect(lists[1]!.pieces.filter((p) => p !== undefined)).toHaveLength(10);

    // Another: the 9 unchanged pieces are taken from the list before.
    const two = one.map((e, i) => (i === 6 * PIECE_ENTRIES ? entry(i, 6) : e));
    expect(coding(next(two))).toBe('gzip');
    expect(lists[2]!.pieces.map((p, k) => p === lists[1]!.pieces[k])).toEqual(
      [...Array(10).keys()].map((k) => k !== 6),
    );

    // Every entry changes: none unchanged.
    const third = next(two.map((e, i) => entry(i, e.runs + 1)));
    expect(third.gzipPieces!.unchanged()).toBe(0);
    expect(coding(third)).toBe('br');
  });

  it('an empty list has nothing to deflate', () => {
    expect(leaderboardPages(head, []).read({ offset: 0 }).gzipPieces!.unchanged()).toBe(1);
  });
});
