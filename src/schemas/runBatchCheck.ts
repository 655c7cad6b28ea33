// The fast check of RunBatchSchema (./runs.ts, ./fastCheck.ts): a batch of runs of exactly the
// shape the schema accepts and returns unchanged (its votes even in the schema's key order; the
// rest is read field by field, services/ingestRuns.ts). It walks the parsed body once and allocates
// nothing but the set of run ids. Anything it is not sure of (an unknown or repeated key, a value
// out of range, a `judge` with more keys than its digest) is a no, and the schema decides (and
// names what is wrong).
import { LIMITS, RESERVED_HOTKEYS, identifierPattern } from './common.js';
import { JUDGE_DIGEST_PATTERN } from './judge.js';

const ID = identifierPattern([]);
const ITEM_ID = identifierPattern(['export']);
const HOTKEY = identifierPattern(Object.keys(RESERVED_HOTKEYS));
/** An ISO 8601 calendar date's form, YYYY-MM-DD. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A date string that names a day that exists (`2024-02-30` does not). */
export const dateExists = (d: string) => !Number.isNaN(Date.parse(d)) && new Date(d).toISOString().startsWith(d);

/** A plain object as JSON.parse makes them. */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

const isId = (v: unknown, pattern: RegExp): boolean =>
  typeof v === 'string' && v.length <= LIMITS.idLength && pattern.test(v);

const isInt = (v: unknown, max: number): boolean =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;

const isText = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'string' && v.length >= min && v.length <= max;

function isTokens(v: unknown): boolean {
  if (v === null) return true;
  if (!isRecord(v)) return false;
  let required = 0;
  for (const key in v) {
    const x = v[key];
    if (key === 'input' || key === 'output') required++;
    else if (key !== 'cachedInput') return false;
    if (!isInt(x, Number.MAX_SAFE_INTEGER)) return false;
  }
  return required === 2;
}

/** A vote's key's position in the schema's shape, -1 for a key it does not name. */
const voteKeyAt = (k: string) => (k === 'verdict' ? 0 : k === 'reason' ? 1 : k === 'evidence' ? 2 : -1);

/**
 * Votes are stored as JSON text, and a resend is compared as such: taken as sent, they must be
 * in the order the schema returns their keys (verdict, reason, evidence; criterionId, votes).
 */
function isVote(v: unknown): boolean {
  if (!isRecord(v)) return false;
  let last = -1;
  for (const key in v) {
    const at = voteKeyAt(key);
    // The verdict, which is required, can only come first.
    if (at < 0 || at <= last || (last < 0 && at !== 0)) return false;
    last = at;
    const x = v[key];
    if (at === 0 ? x !== 'YES' && x !== 'NO' : !isText(x, 0, LIMITS.voteTextLength)) return false;
  }
  return last >= 0;
}

function isCriterionVotes(v: unknown): boolean {
  if (!isRecord(v)) return false;
  let n = 0;
  for (const key in v) {
    const x = v[key];
    if (n === 0 && key === 'criterionId') {
      if (!isText(x, 1, LIMITS.idLength)) return false;
    } else if (n === 1 && key === 'votes') {
      if (!Array.isArray(x) || x.length < 1 || x.length > LIMITS.maxJudgeVotes) return false;
      for (let i = 0; i < x.length; i++) if (!isVote(x[i])) return false;
    } else return false;
    n++;
  }
  return n === 2;
}

function isRubricVotes(v: unknown): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > LIMITS.criteriaPerTask) return false;
  for (let i = 0; i < v.length; i++) if (!isCriterionVotes(v[i])) return false;
  return true;
}

/** `{ digest }` and nothing else (the schema refuses other keys, naming them). */
function isJudge(v: unknown): boolean {
  if (!isRecord(v)) return false;
  let n = 0;
  for (const key in v) {
    if (key !== 'digest' || typeof v[key] !== 'string' || !JUDGE_DIGEST_PATTERN.test(v[key])) return false;
    n++;
  }
  return n === 1;
}

/** One run, baseline or miner, every field in range. */
function isRun(r: unknown): boolean {
  if (!isRecord(r)) return false;
  const kind = r.kind;
  if (kind !== 'baseline' && kind !== 'miner') return false;
  let required = 0;
  let graded = false;
  for (const key in r) {
    const x = r[key];
    switch (key) {
      case 'kind':
        break;
      case 'runId':
        if (!isId(x, ITEM_ID)) return false;
        required++;
        break;
      case 'taskId':
        if (!isId(x, ID)) return false;
        required++;
        break;
      case 'minerHotkey':
        if (kind !== 'miner' || !isId(x, HOTKEY)) return false;
        required++;
        break;
      case 'attemptNo':
        if (!isInt(x, 1_000_000)) return false;
        break;
      case 'resolved':
        if (typeof x !== 'boolean') return false;
        graded = true;
        break;
      case 'tokens':
        if (!isTokens(x)) return false;
        break;
      case 'timeTakenSeconds':
        if (typeof x !== 'number' || !(x >= 0 && x <= 1e9)) return false;
        break;
      case 'agentSteps':
        if (!isInt(x, 1e9)) return false;
        break;
      case 'rubricVotes':
        if (!isRubricVotes(x)) return false;
        graded = true;
        break;
      case 'judge':
        if (!isJudge(x)) return false;
        break;
      case 'answerDate':
        if (typeof x !== 'string' || !ISO_DATE.test(x) || !dateExists(x)) return false;
        break;
      default:
        return false;
    }
  }
  return graded && required === (kind === 'miner' ? 3 : 2);
}

/** True only for a batch RunBatchSchema accepts and returns unchanged. */
export function isWellFormedRunBatch(body: unknown): boolean {
  if (!isRecord(body)) return false;
  for (const key in body) if (key !== 'runs') return false;
  const runs = body.runs;
  if (!Array.isArray(runs) || runs.length < 1 || runs.length > LIMITS.runsPerBatch) return false;
  const ids = new Set<unknown>();
  for (let i = 0; i < runs.length; i++) {
    const r: unknown = runs[i];
    if (!isRun(r)) return false;
    const id = (r as { runId: string }).runId;
    if (ids.has(id)) return false;
    ids.add(id);
  }
  return true;
}
