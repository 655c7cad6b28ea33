// Reads an input document (inputDocument.ts) back, checking what its bytes alone can show: each
// line's shape, the order competition → tasks → runs, ascending unique ids, runs naming listed
// tasks and miners, and the line counts announced on line 1. Any failure names the line and
// the field; nothing is guessed or skipped.
import type { z } from 'zod';
import { PROBLEM_TYPE_PREFIX } from '../errors.js';
import {
  InputCompetitionSchema,
  InputRunSchema,
  InputTaskSchema,
  type InputCompetition,
  type InputDocument,
} from './inputSchemas.js';
import { metagraphProblems } from './metagraph.js';

export class InputDocumentError extends Error {
  constructor(
    readonly line: number,
    readonly field: string | null,
    detail: string,
  ) {
    super(`line ${line}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'InputDocumentError';
  }
}

const KINDS = ['competition', 'task', 'run'] as const;
type Kind = (typeof KINDS)[number];
const SCHEMAS = { competition: InputCompetitionSchema, task: InputTaskSchema, run: InputRunSchema };

function readLine(text: string, line: number): { kind: Kind; value: unknown } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InputDocumentError(line, null, notJson(text));
  }
  const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
  const keys = isObject ? Object.keys(json as object) : [];
  const kind = keys[0] as Kind;
  if (keys.length !== 1 || !KINDS.includes(kind)) {
    // A line of `null` is JSON too: only an object can be the server's problem answer.
    const problem = (isObject ? json : {}) as { type?: unknown; title?: unknown; status?: unknown };
    if (line === 1 && typeof problem.type === 'string' && problem.type.startsWith(PROBLEM_TYPE_PREFIX))
      throw new InputDocumentError(
        line,
        null,
        `this is the server's error answer (${String(problem.status)} ${String(problem.title)}), not an input document: the download failed`,
      );
    throw new InputDocumentError(line, null, 'expected an object with one key: competition, task or run');
  }
  const parsed = (SCHEMAS[kind] as z.ZodType).safeParse((json as Record<string, unknown>)[kind]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = [kind, ...(issue?.path ?? []).map(String)].join('.');
    throw new InputDocumentError(line, field, issue?.message ?? 'invalid');
  }
  return { kind, value: parsed.data };
}

/** Why a line is not JSON, in the words that help: a saved page or a byte-order mark are not a truncation. */
function notJson(text: string): string {
  if (text.trim() === '') return 'empty line';
  if (text.startsWith('\uFEFF'))
    return 'starts with a byte-order mark (U+FEFF): the document is UTF-8 without one, as the server sends it; it was re-saved by an editor';
  if (/^\s*</.test(text)) return 'not JSON but markup (HTML or XML): a web page was saved in place of the document';
  return 'not valid JSON (truncated?)';
}

function ascendingUnique(list: readonly string[], line: number, field: string): void {
  for (let i = 1; i < list.length; i++) {
    if (!((list[i - 1] as string) < (list[i] as string))) {
      const detail = `must be ascending without repeats ("${list[i]}" after "${list[i - 1]}")`;
      throw new InputDocumentError(line, field, detail);
    }
  }
}

function* splitText(text: string): Generator<string> {
  if (text.length === 0) return;
  if (!text.endsWith('\n')) {
    const last = text.split('\n').length;
    throw new InputDocumentError(last, null, 'the document must end with a newline (truncated?)');
  }
  yield* text.slice(0, -1).split('\n');
}

/** Parses a whole document (text ending in "\n") or its lines (each without "\n"). */
export function parseDocument(input: string | Iterable<string>): InputDocument {
  let competition: InputCompetition | null = null;
  const doc: InputDocument = { competition: null as never, tasks: [], runs: [] };
  const tasks = new Set<string>();
  let miners = new Set<string>();
  let line = 0;
  for (const text of typeof input === 'string' ? splitText(input) : input) {
    line += 1;
    const at = line;
    const fail = (field: string | null, detail: string) => new InputDocumentError(at, field, detail);
    const { kind, value } = readLine(text, line);
    if (line === 1) {
      if (kind !== 'competition') throw fail(null, `expected the competition line, found a ${kind} line`);
      competition = value as InputCompetition;
      const { counts: _counts, ...settings } = competition;
      ascendingUnique(settings.miners, 1, 'competition.miners');
      ascendingUnique(settings.excluded.miners, 1, 'competition.excluded.miners');
      ascendingUnique(settings.excluded.validators, 1, 'competition.excluded.validators');
      miners = new Set(settings.miners);
      const stranger = settings.excluded.miners.find((m) => !miners.has(m));
      if (stranger) throw fail('competition.excluded.miners', `"${stranger}" is not in competition.miners`);
      const [problem] = settings.metagraph ? metagraphProblems(settings.metagraph.neurons) : [];
      if (problem) throw fail(['competition', 'metagraph', ...problem.path].join('.'), problem.message);
      doc.competition = settings;
      continue;
    }
    const c = competition as InputCompetition;
    if (kind === 'competition') throw fail(null, 'a second competition line');
    if (kind === 'task') {
      const task = value as InputDocument['tasks'][number];
      if (doc.runs.length > 0) throw fail(null, 'a task line after run lines (tasks come first)');
      if (doc.tasks.length === c.counts.tasks) {
        throw fail(null, `more than ${c.counts.tasks} task lines (competition.counts.tasks)`);
      }
      const prev = doc.tasks.at(-1);
      if (prev && !(prev.id < task.id)) {
        throw fail('task.id', `"${task.id}" after "${prev.id}": tasks must be in ascending id order, each once`);
      }
      doc.tasks.push(task);
      tasks.add(task.id);
      continue;
    }
    const run = value as InputDocument['runs'][number];
    if (doc.tasks.length < c.counts.tasks) {
      throw fail(null, `a run line after ${doc.tasks.length} of ${c.counts.tasks} task lines`);
    }
    if (doc.runs.length === c.counts.runs) {
      throw fail(null, `more than ${c.counts.runs} run lines (competition.counts.runs)`);
    }
    const prev = doc.runs.at(-1);
    if (prev && !(prev.runId < run.runId)) {
      throw fail('run.runId', `"${run.runId}" after "${prev.runId}": runs must be in ascending runId order, each once`);
    }
    if (!tasks.has(run.taskId)) throw fail('run.taskId', `unknown task "${run.taskId}"`);
    if ((run.kind === 'miner') !== (run.minerHotkey !== null)) {
      throw fail('run.minerHotkey', 'required for a miner run, null for a baseline run');
    }
    if (run.minerHotkey !== null && !miners.has(run.minerHotkey)) {
      throw fail('run.minerHotkey', `"${run.minerHotkey}" is not in competition.miners`);
    }
    doc.runs.push(run);
  }
  if (!competition) throw new InputDocumentError(1, null, 'missing competition line (empty document)');
  const { counts } = competition;
  if (doc.tasks.length < counts.tasks || doc.runs.length < counts.runs) {
    const detail = `${doc.tasks.length} of ${counts.tasks} tasks and ${doc.runs.length} of ${counts.runs} runs`;
    throw new InputDocumentError(line + 1, null, `the document ends early (truncated?): ${detail}`);
  }
  return doc;
}
