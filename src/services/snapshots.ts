// Snapshots (API.md 1.1): the scores as they are, frozen with their exact input, sealed into a
// hash chain per competition and signed with the server's Ed25519 key. Anyone can recompute a
// snapshot's leaderboard and weights from its input with `swe-scoring verify`.
import { Readable } from 'node:stream';
import type { Store } from '../db/contract.js';
import { byteStream } from '../exports/chunks.js';
import { conflict, notFound } from '../errors.js';
import { RULES_VERSION } from '../scoring/index.js';
import type { Stage } from '../scoring/types.js';
import { scoreBodies } from '../snapshots/bodies.js';
import { sealSnapshot, type Signer } from '../snapshots/seal.js';
import type { AuditService } from './audit.js';
import { parseCursor } from './audit.js';
import type { Principal } from './principal.js';
import type { ScoresService } from './scores/index.js';
import { signingKeyHistory } from './signingKeys.js';
import { countedRuns, snapshotInput } from './snapshotInput.js';
import { sameOutline, settingsOf, snapshotPass, type Snapshot } from './snapshotPass.js';

export type { Signer };

export function snapshotsService(store: Store, scores: ScoresService, signer: Signer, audit: AuditService) {
  const { inputHead, storedInputChunks, digest } = snapshotInput(store);

  /** The 404 for a snapshot not found: said of the competition when it does not exist (as every route under it). */
  async function noSnapshot(competitionId: string, which: string): Promise<never> {
    if (!(await store.competitions.get(competitionId))) throw notFound(`competition ${competitionId} does not exist`);
    throw notFound(`competition ${competitionId} has no snapshot ${which}`);
  }

  async function row(competitionId: string, seq: number) {
    return (await store.snapshots.get(competitionId, seq)) ?? noSnapshot(competitionId, String(seq));
  }

  /**
   * Takes a snapshot now. The input's head (settings, tasks, miners, run sequence) and the scores
   * are read in one transaction, so no write falls between them. The runs are those with a
   * sequence number up to the head's, stored or deleted since (src/db/snapshots.ts): a set no
   * later write changes, digested after the transaction without holding up other requests.
   */
  async function take(
    competitionId: string,
    options: {
      stages?: Stage[];
      note?: string;
      /** Takes none when the input, stages, settings and rules are the last snapshot's, telling this the run sequence looked through. */
      onlyIfChanged?: (seq: number, runSeq: number) => void;
    },
    who: Principal | null,
  ) {
    // Just after a start from saved scores the competition's pairs may still be read into memory:
    // the transaction would read them all at once, holding every other request meanwhile.
    await scores.prepared(competitionId);
    const frozen = await store.transaction(
      async (tx) => {
        const c = await tx.competitions.get(competitionId);
        if (!c) throw notFound(`competition ${competitionId} does not exist`);
        // Read once: the head's run count and the scores come from the same input.
        const input = await tx.scoringInput.load(c.id, c.tokenWeights);
        const head = await inputHead(tx, c, countedRuns(input));
        const computed = scores.fresh(c, input, options.stages);
        return { c, ...head, scores: computed, previous: await tx.snapshots.latest(c.id) };
      },
      { competitionId },
    );
    const { c, runSeq, excluded, runs, head, previous, metagraph, judge } = frozen;
    const inputDigest = await digest(c.id, { text: head, runs }, runSeq, excluded.validators, judge);
    // The bodies offline scoring builds from the same input (src/snapshots/bodies.ts), so `verify`
    // rescores every snapshot to the same JSON; with a metagraph, the weights on chain and its digest.
    const { leaderboard, weights, chain } = scoreBodies(c.id, frozen.scores, metagraph);
    const onChain = chain && { metagraphDigest: metagraph!.digest, chain };
    // With the judge configuration the scored QnA runs were graded under (SPEC 12), when one is set.
    const settings = settingsOf(c, judge);
    if (options.onlyIfChanged && previous) {
      const last = JSON.parse(previous.document) as Snapshot;
      if (last.inputDigest === inputDigest && sameOutline(last, leaderboard.stages, settings)) {
        options.onlyIfChanged(previous.seq, runSeq);
        return null;
      }
    }
    const sealed = sealSnapshot(
      {
        competitionId: c.id,
        seq: (previous?.seq ?? 0) + 1,
        takenAt: new Date().toISOString(),
        stages: leaderboard.stages,
        rulesVersion: RULES_VERSION,
        settings,
        excluded,
        note: options.note ?? null,
        inputDigest,
        previousHash: previous?.hash ?? null,
        leaderboard,
        weights,
        ...onChain,
      },
      signer.privateKey,
    );
    const document = JSON.stringify(sealed);
    await store.transaction(
      async (tx) => {
        // Another snapshot taken while this one was digested would share its number.
        if ((await tx.snapshots.latest(c.id))?.seq !== previous?.seq)
          throw conflict(`another snapshot of competition ${c.id} was taken meanwhile; take it again`);
        await tx.snapshots.insert({
          competitionId: c.id,
          seq: sealed.seq,
          takenAt: sealed.takenAt,
          runSeq,
          document,
          inputHead: head,
          hash: sealed.hash,
        });
        if (who)
          await audit.record(tx, who, 'snapshot.take', c.id, String(sealed.seq), {
            hash: sealed.hash,
            inputDigest,
            stages: sealed.stages,
            note: sealed.note,
          });
      },
      { competitionId: c.id },
    );
    return document;
  }

  /**
   * A page of snapshots read by `read` (a repo read of the parts kept beside each document, never
   * the documents themselves: ~100 KB each at 256 miners), with the cursor of the next.
   */
  async function page<T extends { seq: number }>(
    competitionId: string,
    cursor: string | undefined,
    limit: number,
    read: (after: number) => Promise<T[]>,
  ) {
    if (!(await store.competitions.get(competitionId))) throw notFound(`competition ${competitionId} does not exist`);
    const rows = await read(parseCursor(cursor));
    const last = rows.at(-1);
    return { rows, nextCursor: rows.length === limit && last ? String(last.seq) : null };
  }

  return {
    publicKeyPem: signer.publicKeyPem,
    /** Takes a snapshot (admin); returns its document as published. */
    take: async (competitionId: string, options: { stages?: Stage[]; note?: string }, who: Principal) =>
      (await take(competitionId, options, who))!,
    /** Every snapshot-signing key this server has used, with the snapshots each signed (GET /v1/identity). */
    signingKeys: () => signingKeyHistory(store, signer),
    /** Takes a snapshot of each competition whose input, stages, settings or rules changed since its last one (./snapshotPass.ts). */
    takeChanged: snapshotPass(store, inputHead, (competitionId, looked) =>
      take(competitionId, { onlyIfChanged: looked }, null),
    ),
    /** One snapshot's document, as published (its exact bytes are what the hash covers). */
    async get(competitionId: string, seq: number | 'latest'): Promise<string> {
      if (seq === 'latest') {
        const latest = await store.snapshots.latest(competitionId);
        return (latest ?? (await noSnapshot(competitionId, 'yet'))).document;
      }
      return (await row(competitionId, seq)).document;
    },
    /** Snapshots without their leaderboard, weights and weights on chain, oldest first. */
    async list(competitionId: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit, (after) =>
        store.snapshots.heads(competitionId, after, limit),
      );
      return { snapshots: rows.map((r) => JSON.parse(r.summary) as Record<string, unknown>), nextCursor };
    },
    /**
     * The snapshot's input document, exactly as the competition stood when it was taken: its
     * SHA-256 (the snapshot's inputDigest, known before a byte is read) and its NDJSON, read from
     * the database only once `open` is called.
     */
    async input(competitionId: string, seq: number): Promise<{ inputDigest: string; open: () => Readable }> {
      const r = await row(competitionId, seq);
      const { excluded, inputDigest } = JSON.parse(r.document) as {
        excluded: { validators: string[] };
        inputDigest: string;
      };
      return {
        inputDigest,
        open: () => byteStream(storedInputChunks(competitionId, r.inputHead, r.runSeq, excluded.validators)),
      };
    },
    async minerHistory(competitionId: string, hotkey: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit, (after) =>
        store.snapshots.minerHistory(competitionId, hotkey, after, limit),
      );
      const history = rows.map((r) => {
        const m = r.entry === null ? null : (JSON.parse(r.entry) as [number | null, number | null, number | null]);
        return {
          seq: r.seq,
          takenAt: r.takenAt,
          rank: m?.[0] ?? null,
          normalizedScore: m?.[1] ?? null,
          finalWeight: m?.[2] ?? 0,
        };
      });
      return { competitionId, hotkey, history, nextCursor };
    },
    async weightsHistory(competitionId: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit, (after) =>
        store.snapshots.weightsHistory(competitionId, after, limit),
      );
      const history = rows.map((r) => ({
        seq: r.seq,
        takenAt: r.takenAt,
        finalWeights: (r.finalWeights === null ? null : JSON.parse(r.finalWeights)) as Record<string, number>,
        burnWeight: r.burnWeight as number,
      }));
      return { competitionId, history, nextCursor };
    },
  };
}
