// The snapshots each recorded signing key signed (keyRanges), and the key `verify --identity`
// picks for a snapshot from them (keyForSnapshot). Pure: literal histories.
import { describe, expect, it } from 'vitest';
import { keyRanges } from '../../src/services/signingKeys.js';
import { keyForSnapshot } from '../../src/snapshots/identityKey.js';

const key = (starts: Record<string, number>) => ({ starts: JSON.stringify(starts) });

describe('keyRanges', () => {
  it.each([
    [
      'one key signs every snapshot',
      [key({})],
      [{ competitionId: 'a', seq: 3 }],
      [[{ competitionId: 'a', firstSeq: 1, lastSeq: 3 }]],
    ],
    [
      'a new key takes over at the seq it recorded; the old one keeps the ones before',
      [key({}), key({ a: 4 })],
      [{ competitionId: 'a', seq: 6 }],
      [[{ competitionId: 'a', firstSeq: 1, lastSeq: 3 }], [{ competitionId: 'a', firstSeq: 4, lastSeq: 6 }]],
    ],
    [
      'a competition without snapshots when the key changed belongs wholly to the new key',
      [key({}), key({ a: 2 })],
      [
        { competitionId: 'a', seq: 1 },
        { competitionId: 'b', seq: 2 },
      ],
      [[{ competitionId: 'a', firstSeq: 1, lastSeq: 1 }], [{ competitionId: 'b', firstSeq: 1, lastSeq: 2 }]],
    ],
    ['no snapshots: every key signed none', [key({}), key({})], [], [[], []]],
  ])('%s', (_rule, keys, latest, expected) => {
    expect(keyRanges(keys, latest)).toEqual(expected);
  });
});

describe('keyForSnapshot', () => {
  const identity = {
    signingKeys: [
      { publicKey: 'OLD', snapshots: [{ competitionId: 'a', firstSeq: 1, lastSeq: 3 }] },
      { publicKey: 'NEW', snapshots: [{ competitionId: 'a', firstSeq: 4, lastSeq: 6 }] },
    ],
  };
  it.each([
    [1, 'OLD'],
    [3, 'OLD'],
    [4, 'NEW'],
    [6, 'NEW'],
  ])('snapshot %i of competition a is checked with key %s', (seq, expected) => {
    expect(keyForSnapshot(identity, 'a', seq)).toBe(expected);
  });
  it('names the snapshot when no listed key holds it, and says when the document has no list', () => {
    expect(() => keyForSnapshot(identity, 'a', 7)).toThrow(/no key for snapshot 7 of competition a/);
    expect(() => keyForSnapshot(identity, 'b', 1)).toThrow(/no key for snapshot 1 of competition b/);
    expect(() => keyForSnapshot({ publicKey: 'X' }, 'a', 1)).toThrow(/no signingKeys list/);
  });
});
