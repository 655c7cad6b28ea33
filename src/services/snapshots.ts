// Snapshots (API.md 1.1): the scores as they are, frozen with their exact input, sealed into a
// hash chain per competition and signed with the server's Ed25519 key. Anyone can recompute a
// snapshot's leaderboard and weights from its input with `swe-scoring verify`.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import type { Store } from '../db/contract.js';
import type { CompetitionSettings } from '../db/competitions.js';
import { conflict, notFound } from '../errors.js';
import { ascending, RULES_VERSION } from '../scoring/index.js';
import type { CompetitionInput, Stage } from '../scoring/types.js';
import { competitionLine, runLine, taskLine } from '../snapshots/inputDocument.js';
import type { Metagraph } from '../snapshots/metagraph.js';
import { sealSnapshot, type Signer } from '../snapshots/seal.js';
import { chainBody } from '../views/chain.js';
import type { AuditService } from './audit.js';
import { parseCursor } from './audit.js';
import type { Principal } from './principal.js';
import type { ScoresService } from './scores/index.js';
import { signingKeyHistory } from './signingKeys.js';
import type { JudgeInput } from '../schemas/judge.js';

export type { Signer };

type Snapshot = Record<string, unknown> & {
  seq: number;
  takenAt: string;
  hash: string;
  inputDigest: string;
  stages: Stage[];
};

/** Run lines go out in chunks of about this many bytes. */
const CHUNK_BYTES = 64 * 1024;

/**
 * How many runs a snapshot taken now holds: the runs that count (those of excluded validators left
 * out, as the input leaves them out), which the aggregates sum exactly. Read from the scoring input
 * kept in memory instead of counting the runs table, which on a large competition would hold every
 * other request inside the snapshot's transaction; the digest checks it against the runs it reads.
 */
function countedRuns({ tasks, minerTasks }: Pick<CompetitionInput, 'tasks' | 'minerTasks'>): number {
  let runs = 0;
  for (const t of tasks) runs += t.baseline.runs;
  for (const e of minerTasks) runs += e.runs;
  return runs;
}

/** The judge digest the input head's competition line names (SPEC 12), null when none. */
function headJudge(head: string): string | null {
  const line = JSON.parse(head.slice(0, head.indexOf('\n'))) as { competition: { judge?: { digest: string } } };
  return line.competition.judge?.digest ?? null;
}

export function snapshotsService(store: Store, scores: ScoresService, signer: Signer, audit: AuditService) {
  /**
   * The competition and task lines of the input as the competition stands now (with the metagraph
   * in force, if any), and its run sequence.
   */
  async function inputHead(tx: Store, c: CompetitionSettings, runs: number) {
    const runSeq = await tx.snapshots.runSeq();
    const recorded = await tx.metagraphs.latest(c.id);
    const judgeRow = await tx.judges.latest(c.id);
    const judge = judgeRow && { digest: judgeRow.digest, ...(JSON.parse(judgeRow.document) as JudgeInput) };
    const metagraph = recorded && { value: JSON.parse(recorded.document) as Metagraph, digest: recorded.digest };
    const miners = await tx.miners.list(c.id);
    const tasks = (await tx.tasks.list(c.id)).sort((a, b) => ascending(a.id, b.id));
    const excluded = {
      miners: miners.filter((m) => m.excluded).map((m) => m.hotkey),
      validators: c.excludedValidators,
    };
    const competition = {
      id: c.id,
      tokenWeights: c.tokenWeights,
      burnRatio: c.burnRatio,
      judgeVotes: c.judgeVotes,
      finalStages: c.finalStages,
      miners: miners.map((m) => m.hotkey),
      excluded,
      ...(metagraph ? { metagraph: metagraph.value } : {}),
      ...(judge ? { judge } : {}),
    };
    const lines = [competitionLine(competition, { tasks: tasks.length, runs })];
    for (const t of tasks) {
      lines.push(
        taskLine({
          id: t.id,
          type: t.type as 'swebench_verified' | 'swe_atlas_qna',
          stage: t.stage as Stage,
          complexity: t.complexity as 'short' | 'medium' | 'long' | null,
          plannedRuns: t.plannedRuns,
        }),
      );
    }
    return { runSeq, excluded, runs, metagraph, judge: judge?.digest ?? null, head: `${lines.join('\n')}\n` };
  }

  /**
   * The input document's bytes, chunk by chunk: the stored head, then the run lines read back.
   * `read.runs` counts the run lines as they go.
   */
  async function* inputChunks(
    competitionId: string,
    head: string,
    runSeq: number,
    excludedValidators: readonly string[],
    judge: string | null,
    read = { runs: 0 },
  ) {
    yield Buffer.from(head, 'utf8');
    let chunk = '';
    for await (const run of store.snapshots.inputRuns(competitionId, runSeq, excludedValidators, judge)) {
      read.runs++;
      chunk += `${runLine(run)}\n`;
      if (chunk.length >= CHUNK_BYTES) {
        yield Buffer.from(chunk, 'utf8');
        chunk = '';
      }
    }
    if (chunk) yield Buffer.from(chunk, 'utf8');
  }

  /** The input document's digest; throws if its head's run count is not the runs it holds. */
  async function digest(
    competitionId: string,
    head: { text: string; runs: number },
    runSeq: number,
    excludedValidators: readonly string[],
    judge: string | null,
  ): Promise<string> {
    const hash = createHash('sha256');
    const read = { runs: 0 };
    for await (const chunk of inputChunks(competitionId, head.text, runSeq, excludedValidators, judge, read)) {
      hash.update(chunk);
      // SQLite's reads answer at once, so without a turn of the event loop here the whole digest
      // (seconds at the reference size) would run before any other request.
      await setImmediate();
    }
    // The count came from the aggregates (countedRuns): a difference is a broken invariant, and a
    // snapshot sealed over it would never verify.
    if (read.runs !== head.runs)
      throw new Error(
        `snapshot input of ${competitionId}: the aggregates count ${head.runs} runs, the input holds ${read.runs}; nothing was stored`,
      );
    return hash.digest('hex');
  }

  async function row(competitionId: string, seq: number) {
    const found = await store.snapshots.get(competitionId, seq);
    if (!found) throw notFound(`competition ${competitionId} has no snapshot ${seq}`);
    return found;
  }

  /**
   * Takes a snapshot now. The input's head (settings, tasks, miners, run sequence) and the scores
   * are read in one transaction, so no write falls between them. The runs are those with a
   * sequence number up to the head's, stored or deleted since (src/db/snapshots.ts): a set no
   * later write changes, digested after the transaction without holding up other requests.
   */
  async function take(
    competitionId: string,
    options: { stages?: Stage[]; note?: string; onlyIfChanged?: boolean },
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
        const bodies = scores.fresh(c, input, options.stages);
        return { c, ...head, ...bodies, previous: await tx.snapshots.latest(c.id) };
      },
      { competitionId },
    );
    const { c, runSeq, excluded, runs, head, previous, metagraph, judge } = frozen;
    const inputDigest = await digest(c.id, { text: head, runs }, runSeq, excluded.validators, judge);
    // The snapshot keeps the leaderboard as offline scoring builds it: the live read's `total` (a
    // paging aid, API 1.1) stays out, so `verify` rescores every snapshot, old and new, to the same JSON.
    const { total: _total, ...leaderboard } = frozen.leaderboard as { stages: Stage[]; total?: number };
    const weights = frozen.weights as { finalWeights: Record<string, number>; burnWeight: number };
    // With a metagraph: the weights on chain as the live read gives them, and the metagraph's digest.
    const onChain = metagraph && {
      metagraphDigest: metagraph.digest,
      chain: chainBody(
        {
          competitionId: c.id,
          stages: leaderboard.stages,
          weights,
          miners: (leaderboard as unknown as { miners: { hotkey: string }[] }).miners.map((m) => m.hotkey),
        },
        metagraph.value,
        metagraph.digest,
      ),
    };
    const settings = {
      name: c.name,
      tokenWeights: c.tokenWeights,
      burnRatio: c.burnRatio,
      judgeVotes: c.judgeVotes,
      finalStages: c.finalStages,
      // The judge configuration the scored QnA runs were graded under (SPEC 12), when one is set.
      ...(judge ? { judgeDigest: judge } : {}),
    };
    if (options.onlyIfChanged && previous) {
      const last = JSON.parse(previous.document) as Snapshot;
      const same =
        last.inputDigest === inputDigest &&
        JSON.stringify(last.stages) === JSON.stringify(leaderboard.stages) &&
        JSON.stringify(last.settings) === JSON.stringify(settings);
      if (same) return null;
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

  // Parsed summaries of immutable snapshots, for history reads.
  const summaries = new Map<
    string,
    {
      takenAt: string;
      miners: Map<string, { rank: number | null; normalizedScore: number | null; finalWeight: number }>;
      finalWeights: Record<string, number>;
      burnWeight: number;
    }
  >();
  function summary(r: { competitionId: string; seq: number; document: string }) {
    const key = `${r.competitionId}\u0000${r.seq}`;
    let s = summaries.get(key);
    if (!s) {
      const doc = JSON.parse(r.document) as {
        takenAt: string;
        leaderboard: {
          miners: {
            hotkey: string;
            rank: number | null;
            normalizedScore: number | null;
            incentive: { finalWeight: number };
          }[];
        };
        weights: { finalWeights: Record<string, number>; burnWeight: number };
      };
      s = {
        takenAt: doc.takenAt,
        miners: new Map(
          doc.leaderboard.miners.map((m) => [
            m.hotkey,
            { rank: m.rank, normalizedScore: m.normalizedScore, finalWeight: m.incentive.finalWeight },
          ]),
        ),
        finalWeights: doc.weights.finalWeights,
        burnWeight: doc.weights.burnWeight,
      };
      if (summaries.size >= 2000) summaries.delete(summaries.keys().next().value!);
      summaries.set(key, s);
    }
    return s;
  }

  async function page(competitionId: string, cursor: string | undefined, limit: number) {
    if (!(await store.competitions.get(competitionId))) throw notFound(`competition ${competitionId} does not exist`);
    const rows = await store.snapshots.list(competitionId, parseCursor(cursor), limit);
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
    /** Takes a snapshot of each competition whose input, stages or settings changed since its last one. */
    async takeChanged(): Promise<number> {
      let taken = 0;
      for (const c of await store.competitions.list()) if (await take(c.id, { onlyIfChanged: true }, null)) taken++;
      return taken;
    },
    /** One snapshot's document, as published (its exact bytes are what the hash covers). */
    async get(competitionId: string, seq: number | 'latest'): Promise<string> {
      if (seq === 'latest') {
        const latest = await store.snapshots.latest(competitionId);
        if (!latest) throw notFound(`competition ${competitionId} has no snapshot yet`);
        return latest.document;
      }
      return (await row(competitionId, seq)).document;
    },
    /** Snapshots without their leaderboard, weights and weights on chain, oldest first. */
    async list(competitionId: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit);
      const snapshots = rows.map((r) => {
        const { leaderboard: _l, weights: _w, chain: _c, ...rest } = JSON.parse(r.document) as Record<string, unknown>;
        return rest;
      });
      return { snapshots, nextCursor };
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
        open: () =>
          Readable.from(inputChunks(competitionId, r.inputHead, r.runSeq, excluded.validators, headJudge(r.inputHead))),
      };
    },
    async minerHistory(competitionId: string, hotkey: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit);
      const history = rows.map((r) => {
        const s = summary(r);
        const m = s.miners.get(hotkey);
        return {
          seq: r.seq,
          takenAt: s.takenAt,
          rank: m?.rank ?? null,
          normalizedScore: m?.normalizedScore ?? null,
          finalWeight: m?.finalWeight ?? 0,
        };
      });
      return { competitionId, hotkey, history, nextCursor };
    },
    async weightsHistory(competitionId: string, cursor: string | undefined, limit: number) {
      const { rows, nextCursor } = await page(competitionId, cursor, limit);
      const history = rows.map((r) => {
        const s = summary(r);
        return { seq: r.seq, takenAt: s.takenAt, finalWeights: s.finalWeights, burnWeight: s.burnWeight };
      });
      return { competitionId, history, nextCursor };
    },
  };
}
