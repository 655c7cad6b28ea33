// The streaming reader of import files (the import worker's): read a piece at a time, it must
// see exactly the tasks the whole-buffer reader sees, wherever the pieces split the text.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseQnaImport, type QnaTask } from '../../src/qna/index.js';
import { parseQnaFile } from '../../src/qna/parseFile.js';
import { tempDir } from '../support/tempDir.js';
import { jsonlRows } from './fixtures.js';

const dir = tempDir('parse-file');
afterAll(() => dir.remove());

async function streamed(body: string): Promise<{ tasks: QnaTask[]; result: unknown }> {
  const path = join(dir.dir, 'tasks.jsonl');
  writeFileSync(path, body);
  const tasks: QnaTask[] = [];
  const result = await parseQnaFile(path, 'jsonl', (batch) => void tasks.push(...batch));
  return { tasks, result };
}

describe('parseQnaFile (JSON Lines)', () => {
  it('reads lines longer than one read, with multi-byte characters across read boundaries, as the whole-buffer reader does', async () => {
    // Answers of 40-240 KB (under the 200,000-character limit): most lines span several 64 KiB reads; 'é' (2 bytes) and '𝄞' (4 bytes)
    // are cut between reads at every offset sooner or later.
    const rows = jsonlRows()
      .slice(0, 6)
      .map((r, i) => ({ ...r, reference_answer: `${'é𝄞 x'.repeat(5_000 * (i + 1))}${String(r.reference_answer)}` }));
    const body = rows.map((r) => JSON.stringify(r)).join('\r\n');
    expect(Buffer.byteLength(body)).toBeGreaterThan(6 * 64 * 1024);
    const whole = await parseQnaImport(new TextEncoder().encode(body), 'jsonl');
    expect(whole.ok).toBe(true);
    const { tasks, result } = await streamed(body);
    expect(result).toEqual({ ok: true, rows: 6 });
    expect(tasks).toEqual(whole.ok ? whole.tasks : null);
    expect(tasks[5]!.referenceAnswer.startsWith('é𝄞 x'.repeat(1000))).toBe(true);
  });

  it('names the line of a problem past the first read', async () => {
    const rows = jsonlRows().slice(0, 40);
    rows[37] = { ...rows[37], language: 'rust' };
    const body = rows.map((r) => JSON.stringify(r)).join('\n');
    expect(Buffer.byteLength(body)).toBeGreaterThan(64 * 1024 * 4);
    const { tasks, result } = await streamed(body);
    expect(result).toEqual({
      ok: false,
      problems: [{ row: 38, field: 'language', message: 'must be one of go, python, c, ts' }],
      more: 0,
    });
    expect(tasks.length).toBeLessThan(38);
  });

  it.each([3, 37, 40])(
    'names the line of a byte that is not UTF-8 (line %i), wherever the reads split',
    async (bad) => {
      const lines = jsonlRows()
        .slice(0, 40)
        .map((r) => Buffer.from(JSON.stringify(r)));
      const at = lines[bad - 1]!.indexOf('"task_id"');
      lines[bad - 1] = Buffer.concat([
        lines[bad - 1]!.subarray(0, at),
        Buffer.from([0xff]),
        lines[bad - 1]!.subarray(at),
      ]);
      const path = join(dir.dir, `bad-${bad}.jsonl`);
      writeFileSync(path, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
      const result = await parseQnaFile(path, 'jsonl', () => undefined);
      expect(result).toEqual({
        ok: false,
        problems: [{ row: bad, field: 'file', message: 'is not valid UTF-8 text' }],
        more: 0,
      });
    },
  );
});
