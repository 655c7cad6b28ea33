// A snapshot's input document (API.md 1.1, SPEC 9): its head (the competition and task lines as
// the competition stands, with the metagraph and judge configuration in force) and its run lines
// read back by run sequence, streamed in chunks and digested.
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { CompetitionSettings } from '../db/competitions.js';
import type { Store } from '../db/contract.js';
import type { JudgeInput } from '../schemas/judge.js';
import { ascending } from '../scoring/index.js';
import type { CompetitionInput, Stage } from '../scoring/types.js';
import { competitionLine, runLine, taskLine } from '../snapshots/inputDocument.js';
import type { Metagraph } from '../snapshots/metagraph.js';

/** Run lines go out in chunks of about this many bytes. */
const CHUNK_BYTES = 64 * 1024;

/**
 * How many runs a snapshot taken now holds: the runs that count (those of excluded validators left
 * out, as the input leaves them out), which the aggregates sum exactly. Read from the scoring input
 * kept in memory instead of counting the runs table, which on a large competition would hold every
 * other request inside the snapshot's transaction; the digest checks it against the runs it reads.
 */
export function countedRuns({ tasks, minerTasks }: Pick<CompetitionInput, 'tasks' | 'minerTasks'>): number {
  let runs = 0;
  for (const t of tasks) runs += t.baseline.runs;
  for (const e of minerTasks) runs += e.runs;
  return runs;
}

/** The input head's competition line: the judge digest it names (SPEC 12, null when none) and its run count. */
function headLine(head: string): { judge: string | null; runs: number } {
  const line = JSON.parse(head.slice(0, head.indexOf('\n'))) as {
    competition: { judge?: { digest: string }; counts: { runs: number } };
  };
  return { judge: line.competition.judge?.digest ?? null, runs: line.competition.counts.runs };
}

export function snapshotInput(store: Store) {
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
    undigestedQna = false,
  ) {
    yield Buffer.from(head, 'utf8');
    let chunk = '';
    for await (const run of store.snapshots.inputRuns(
      competitionId,
      runSeq,
      excludedValidators,
      judge,
      undigestedQna,
    )) {
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

  /**
   * A stored snapshot's input document, chunk by chunk, read back under the judge configuration its
   * head names. A snapshot taken while QnA runs that name no configuration still counted under one
   * (before they were stale, SPEC 12) holds them: its head counts more runs than the rule of today
   * keeps, and only then are they read back too (they are the only runs the two rules part on).
   */
  async function* storedInputChunks(
    competitionId: string,
    head: string,
    runSeq: number,
    excludedValidators: readonly string[],
  ) {
    const { judge, runs } = headLine(head);
    const undigestedQna =
      judge !== null &&
      (await store.snapshots.inputRunCount(competitionId, runSeq, excludedValidators, judge)) !== runs;
    yield* inputChunks(competitionId, head, runSeq, excludedValidators, judge, undefined, undigestedQna);
  }

  return { inputHead, inputChunks, storedInputChunks, digest };
}
