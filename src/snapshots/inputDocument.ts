// A snapshot's input document as NDJSON (docs/CANONICAL_JSON.md): line 1 the competition, then
// its tasks in ascending id order, then its scored runs in ascending runId order; every line
// canonical JSON (RFC 8785), each ended by "\n". The SHA-256 of those exact bytes is the
// snapshot's `inputDigest`. Both orders are by UTF-16 code units, which for ids of
// [A-Za-z0-9._:-] is byte order too (SQLite's BINARY collation gives the same).
import { createHash } from 'node:crypto';
import { ascending } from '../scoring/ascending.js';
import { canonicalJson } from './canonicalJson.js';
import type { InputCompetition, InputDocument, InputRun, InputTask } from './inputSchemas.js';

export { parseDocument } from './parseDocument.js';

const sorted = (ids: readonly string[]) => [...ids].sort(ascending);

/** Line 1; `counts` are the numbers of task and run lines that will follow. */
export function competitionLine(c: InputDocument['competition'], counts: InputCompetition['counts']): string {
  const { id, tokenWeights, burnRatio, judgeVotes, finalStages } = c;
  const excluded = { miners: sorted(c.excluded.miners), validators: sorted(c.excluded.validators) };
  const miners = sorted(c.miners);
  // A document of a competition without a metagraph has no `metagraph` member (as before there was one).
  const metagraph = c.metagraph ? { metagraph: c.metagraph } : {};
  const judge = c.judge ? { judge: c.judge } : {};
  return canonicalJson({
    competition: {
      id,
      tokenWeights,
      burnRatio,
      judgeVotes,
      finalStages,
      miners,
      excluded,
      counts,
      ...metagraph,
      ...judge,
    },
  });
}

export function taskLine(t: InputTask): string {
  const { id, type, stage, complexity, plannedRuns } = t;
  return canonicalJson({ task: { id, type, stage, complexity, plannedRuns } });
}

export function runLine(r: InputRun): string {
  const { runId, taskId, kind, minerHotkey, resolved, validatorId } = r;
  const tokens = r.tokens && { input: r.tokens.input, cachedInput: r.tokens.cachedInput, output: r.tokens.output };
  return canonicalJson({ run: { runId, taskId, kind, minerHotkey, resolved, tokens, validatorId } });
}

/**
 * The document's lines, each without its "\n", in document order (tasks and runs are sorted
 * here). A server streaming a large competition can instead write `competitionLine`, then
 * `taskLine` and `runLine` over rows read in the same orders, for the same bytes.
 */
export function* serializeLines(doc: InputDocument): Generator<string> {
  const tasks = [...doc.tasks].sort((a, b) => ascending(a.id, b.id));
  const runs = [...doc.runs].sort((a, b) => ascending(a.runId, b.runId));
  yield competitionLine(doc.competition, { tasks: tasks.length, runs: runs.length });
  for (const t of tasks) yield taskLine(t);
  for (const r of runs) yield runLine(r);
}

/** The whole document: every line followed by "\n". */
export function serializeDocument(doc: InputDocument): string {
  let text = '';
  for (const line of serializeLines(doc)) text += `${line}\n`;
  return text;
}

/** SHA-256 (lower-case hex) of the document's exact bytes: a snapshot's `inputDigest`. */
export function inputDigest(document: string | Uint8Array): string {
  return createHash('sha256').update(document).digest('hex');
}
