// Imports a SWE-Atlas-QnA file from disk: parsed and validated in a worker thread, then stored in
// one transaction. Stage and complexity apply when given; left out, a task already stored keeps
// its own (a new one gets `evaluation` and no complexity), so re-importing a file never resets them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Repos } from '../db/repos.js';
import type { TaskRecord } from '../db/tasks.js';
import { badRequest, notFound } from '../errors.js';
import { parseFileInWorker } from '../qna/parseInWorker.js';
import type { QnaTask } from '../qna/index.js';
import type { Complexity, Stage } from '../scoring/types.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';

export type ImportFormat = 'parquet' | 'jsonl';
export interface ImportOptions {
  stage?: Stage;
  complexity?: Complexity;
}
export interface ImportCounts {
  imported: number;
  updated: number;
  unchanged: number;
}

function record(t: QnaTask, stage: Stage, complexity: Complexity | null): TaskRecord {
  const { id, rubric, ...meta } = t;
  return { id, type: 'swe_atlas_qna', stage, complexity, plannedRuns: null, qna: meta, rubric };
}

/** Records an import that changed something in the audit log, inside its transaction. */
export const auditImport =
  (audit: AuditService, who: Principal, competitionId: string, format: ImportFormat, options: ImportOptions) =>
  (counts: ImportCounts) => {
    if (counts.imported + counts.updated > 0)
      audit.record(who, 'tasks.import', competitionId, `${format} file`, { ...counts, format, ...options });
  };

/**
 * `beforeWrite` runs after the parse, just before the transaction: it may throw to store nothing.
 * `afterWrite` runs inside the transaction, with what was stored (the audit entry).
 */
export async function importQnaFile(
  repos: Repos,
  competitionId: string,
  path: string,
  format: ImportFormat,
  options: ImportOptions,
  beforeWrite?: () => void,
  afterWrite?: (counts: ImportCounts) => void,
): Promise<ImportCounts> {
  if (!repos.competitions.get(competitionId)) throw notFound(`competition ${competitionId} does not exist`);
  const parsed = await parseFileInWorker(path, format);
  if (!parsed.ok) {
    // A whole-file problem (unreadable Parquet, no rows) has no row to name.
    const errors = parsed.problems.map((p) => ({
      path: p.row === null ? p.field : `row ${p.row}/${p.field}`,
      message: p.message,
    }));
    const detail = errors
      .slice(0, 5)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; ');
    const more = parsed.more > 0 ? ` (${errors.length + parsed.more} problems, the first ${errors.length} listed)` : '';
    throw badRequest(`import rejected, nothing stored: ${detail}${more}`, errors);
  }
  beforeWrite?.();
  return repos.transaction(() => {
    // The competition may have gone while the file was parsed.
    if (!repos.competitions.get(competitionId)) throw notFound(`competition ${competitionId} does not exist`);
    const records = parsed.tasks.map((t) => {
      const before = options.stage && options.complexity ? null : repos.tasks.get(competitionId, t.id);
      const stage = options.stage ?? (before?.stage as Stage | undefined) ?? 'evaluation';
      const complexity = options.complexity ?? (before?.complexity as Complexity | null | undefined) ?? null;
      return record(t, stage, complexity);
    });
    const counts = repos.tasks.upsertMany(competitionId, records);
    afterWrite?.(counts);
    return counts;
  });
}

/** The same from bytes in memory (the one-request import route): spooled to a temporary file first. */
export async function importQnaBytes(
  repos: Repos,
  competitionId: string,
  body: Uint8Array,
  format: ImportFormat,
  options: ImportOptions,
  afterWrite?: (counts: ImportCounts) => void,
) {
  const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-import-'));
  try {
    const path = join(dir, `upload.${format}`);
    writeFileSync(path, body);
    return await importQnaFile(repos, competitionId, path, format, options, undefined, afterWrite);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
