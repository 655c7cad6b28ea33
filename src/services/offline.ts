// POST /v1/score's work, done in its worker thread (./scoreWorker.ts): an input document checked
// against the limits, parsed and scored with nothing stored, the same code as `swe-scoring
// score`, and answered as the JSON bytes the client receives.
import { badRequest, tooLarge } from '../errors.js';
import type { Stage } from '../scoring/types.js';
import { documentOverLimit, type DocumentLimits } from '../snapshots/documentLimits.js';
import { InputDocumentError, parseDocument } from '../snapshots/parseDocument.js';
import { scoreDocument } from '../snapshots/scoreDocument.js';

export interface ScoreLimits extends DocumentLimits {
  /** The largest answer, in bytes of JSON. */
  answerBytes: number;
}

/** Each limit's setting (src/config.ts), for a 413 that says which one to raise. */
export const LIMIT_SETTINGS: Record<keyof ScoreLimits | 'memoryMb' | 'timeoutMs', string> = {
  miners: 'SCORING_SCORE_MAX_MINERS',
  tasks: 'SCORING_SCORE_MAX_TASKS',
  runs: 'SCORING_SCORE_MAX_RUNS',
  answerBytes: 'SCORING_SCORE_MAX_ANSWER_BYTES',
  memoryMb: 'SCORING_SCORE_MEMORY_MB',
  timeoutMs: 'SCORING_SCORE_TIMEOUT_MS',
};

/** Where a 413 sends a document too big for the server: the command line scores it with no limit. */
export const OFFLINE_HINT = 'score it offline instead: `npx swe-scoring score input.ndjson`';

const WHERE: Record<keyof DocumentLimits, string> = {
  miners: 'body/line 1/competition.miners',
  tasks: 'body/line 1/competition.counts.tasks',
  runs: 'body/line 1/competition.counts.runs',
};

export function scoreInputDocument(body: Uint8Array, stages: Stage[] | undefined, limits: ScoreLimits): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('the input document is not UTF-8', [{ path: 'body', message: 'not UTF-8' }]);
  }
  const over = documentOverLimit(text, limits);
  if (over) {
    const { limit, count, max } = over;
    throw tooLarge(
      `the document has ${count} ${limit}; POST /v1/score takes at most ${max} (${LIMIT_SETTINGS[limit]}): ${OFFLINE_HINT}`,
      [{ path: WHERE[limit], message: `${count} ${limit}, more than the limit of ${max}` }],
    );
  }
  let scored: ReturnType<typeof scoreDocument>;
  try {
    scored = scoreDocument(parseDocument(text), stages);
  } catch (e) {
    if (!(e instanceof InputDocumentError)) throw e;
    throw badRequest(e.message, [{ path: `body/line ${e.line}${e.field ? `/${e.field}` : ''}`, message: e.message }]);
  }
  // Serialized as built: a plain object of own keys, so a hotkey such as `__proto__` stays a key.
  const answer = answerBytes(scored, limits.answerBytes);
  if (answer === null || answer.byteLength > limits.answerBytes)
    throw tooLarge(
      `the answer for this document is larger than ${limits.answerBytes} bytes (${LIMIT_SETTINGS.answerBytes}): ${OFFLINE_HINT}`,
    );
  return answer;
}

/** The answer's UTF-8 bytes, or null when it is too long for a string at all (past max anyway). */
function answerBytes(scored: unknown, max: number): Uint8Array | null {
  let json: string;
  try {
    json = JSON.stringify(scored);
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
  // A character is at least one byte: a string longer than the limit needs no encoding to be refused.
  if (json.length > max) return null;
  return new TextEncoder().encode(json);
}
