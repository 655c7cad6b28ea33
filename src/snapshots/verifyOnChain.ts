// `verify`'s check of the weights on chain (SPEC 11): the snapshot's metagraph digest is the
// digest of the metagraph its input carries, and rescoring gives its integer vector and floats
// exactly, or the first uid that differs is named. A snapshot taken with no metagraph recorded
// carries neither, and its input no metagraph: nothing to check.
import { firstDifference } from './firstDifference.js';
import { metagraphDigest, type Metagraph } from './metagraph.js';
import type { Snapshot } from './snapshotSchema.js';
import type { ChainBody } from '../views/chain.js';

interface Check {
  name: 'onChain';
  ok: boolean | null;
  message: string;
}

const failed = (message: string): Check => ({ name: 'onChain', ok: false, message });
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

/** Uid -> integer of a vector given as two lists. */
function byUid(body: { uids: number[]; weights: number[] }): Map<number, number> {
  return new Map(body.uids.map((uid, i) => [uid, body.weights[i]!]));
}

/** The first uid, ascending, whose integer (or, with equal integers, float) differs, said in words. */
function firstUid(expected: Record<string, unknown>, actual: ChainBody): string | null {
  const claimed = expected as { uids: number[]; weights: number[]; floats?: Record<string, unknown> };
  const want = byUid(claimed);
  const got = byUid(actual);
  const uids = [...new Set([...want.keys(), ...got.keys()])].sort((a, b) => a - b);
  for (const uid of uids)
    if (want.get(uid) !== got.get(uid))
      return `uid ${uid}: weight ${show(want.get(uid))} in the snapshot, ${show(got.get(uid))} rescored`;
  const d = firstDifference(claimed.floats, actual.floats);
  return d ? `uid ${String(d.path[0])}: float ${show(d.expected)} in the snapshot, ${show(d.actual)} rescored` : null;
}

export function onChainCheck(
  snapshot: Snapshot,
  metagraph: Metagraph | undefined,
  rescored: ChainBody | undefined,
): Check {
  const { chain: claimed, metagraphDigest: claimedDigest } = snapshot;
  if (claimed === undefined && claimedDigest === undefined && metagraph === undefined)
    return { name: 'onChain', ok: null, message: 'not checked (taken with no metagraph recorded)' };
  if (metagraph === undefined || rescored === undefined)
    return failed('the snapshot carries weights on chain, its input no metagraph');
  if (claimed === undefined || claimedDigest === undefined)
    return failed('the input carries a metagraph, the snapshot no weights on chain or no metagraphDigest');
  const digest = metagraphDigest(metagraph);
  if (digest !== claimedDigest)
    return failed(`the input's metagraph hashes to ${digest}, the snapshot's metagraphDigest is ${claimedDigest}`);
  const actual = JSON.parse(JSON.stringify(rescored)) as ChainBody;
  const uid = firstUid(claimed, actual);
  if (uid) return failed(uid);
  const d = firstDifference(claimed, actual);
  if (d) return failed(`chain.${d.path.join('.')}: ${show(d.expected)} in the snapshot, ${show(d.actual)} rescored`);
  return {
    name: 'onChain',
    ok: true,
    message: `rescoring reproduces the weights on chain (${actual.uids.length} uids) under metagraph ${digest}`,
  };
}
