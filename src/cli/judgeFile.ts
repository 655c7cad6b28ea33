// `swe-scoring import --judge FILE`: the judge configuration (SPEC 12) a task set is graded under,
// set on the competition before its tasks are imported. The fixture ships the AA edition's
// (fixtures/swe-atlas-qna/judge.json). A configuration already in force is left as it is, so a
// repeated import adds no version.
import { existsSync, readFileSync } from 'node:fs';
import type { Store } from '../db/contract.js';
import { JudgeInputSchema, type JudgeInput } from '../schemas/judge.js';
import { auditService } from '../services/audit.js';
import { judgeDigest, judgesService } from '../services/judges.js';
import { writeGate } from '../services/writeGate.js';
import { CliError } from './command.js';

/** What the import says of the judge: its digest and version, and whether this import set it. */
export interface JudgeSet {
  digest: string;
  version: number;
  set: boolean;
}

/** The configuration in FILE, checked as the API checks it; a CliError naming each bad field. */
export function readJudgeFile(file: string): JudgeInput {
  if (!existsSync(file)) throw new CliError(`--judge: no file at ${file}`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`--judge: ${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = JudgeInputSchema.safeParse(json);
  if (!parsed.success)
    throw new CliError(
      `--judge: ${file} is not a judge configuration; nothing imported`,
      parsed.error.issues.map((i) => `  ${i.path.join('/') || '(file)'}: ${i.message}`),
    );
  return parsed.data;
}

/** Sets the configuration in the store, as the admin, unless it is the one in force. */
export async function setJudgeInStore(store: Store, competitionId: string, judge: JudgeInput): Promise<JudgeSet> {
  const current = await store.judges.latest(competitionId);
  if (current?.digest === judgeDigest(judge)) return { digest: current.digest, version: current.version, set: false };
  const row = await judgesService(store, auditService(store), writeGate()).put(competitionId, judge, { kind: 'admin' });
  return { digest: row.digest, version: row.version, set: true };
}

/** Sets the configuration through a running server (PUT …/judge), unless it is the one in force. */
export async function setJudgeViaServer(
  url: string,
  token: string,
  competitionId: string,
  judge: JudgeInput,
): Promise<JudgeSet> {
  const at = `${url.replace(/\/+$/, '')}/v1/competitions/${encodeURIComponent(competitionId)}/judge`;
  const call = async (method: 'GET' | 'PUT') => {
    const res = await fetch(at, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(method === 'PUT' ? { 'content-type': 'application/json' } : {}),
      },
      body: method === 'PUT' ? JSON.stringify(judge) : undefined,
    }).catch((e: Error) => {
      throw new CliError(`cannot reach ${url}: ${e.message}`);
    });
    const body = (await res.json().catch(() => ({}))) as { digest?: string; version?: number; detail?: string };
    return { status: res.status, body };
  };
  const current = await call('GET');
  if (current.status === 200 && current.body.digest === judgeDigest(judge))
    return { digest: current.body.digest, version: current.body.version!, set: false };
  const put = await call('PUT');
  if (put.status !== 200)
    throw new CliError(`--judge: ${put.status}: ${put.body.detail ?? 'refused'}; nothing imported`);
  return { digest: put.body.digest!, version: put.body.version!, set: true };
}
