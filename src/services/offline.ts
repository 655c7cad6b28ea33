// POST /v1/score: an input document scored with nothing stored, the same code as `swe-scoring score`.
import { badRequest } from '../errors.js';
import type { Stage } from '../scoring/types.js';
import { InputDocumentError, parseDocument } from '../snapshots/parseDocument.js';
import { scoreDocument } from '../snapshots/scoreDocument.js';

export function scoreInputDocument(body: Uint8Array, stages?: Stage[]) {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('the input document is not UTF-8', [{ path: 'body', message: 'not UTF-8' }]);
  }
  try {
    return scoreDocument(parseDocument(text), stages);
  } catch (e) {
    if (!(e instanceof InputDocumentError)) throw e;
    throw badRequest(e.message, [{ path: `body/line ${e.line}${e.field ? `/${e.field}` : ''}`, message: e.message }]);
  }
}
