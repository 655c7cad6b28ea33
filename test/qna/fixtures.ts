// The real SWE-Atlas-QnA files, resolved from this file so the tests run from any directory
// (fixtures/swe-atlas-qna at the repository root).
import { readFileSync } from 'node:fs';

const dataFile = (name: string) => new URL(`../../fixtures/swe-atlas-qna/${name}`, import.meta.url);

export const parquetBytes = (): Uint8Array => new Uint8Array(readFileSync(dataFile('test-00000-of-00001.parquet')));
export const jsonlText = (): string => readFileSync(dataFile('tasks.jsonl'), 'utf8');

/** The JSONL rows as objects, for tests that break one field and serialize them back. */
export const jsonlRows = (): Record<string, unknown>[] =>
  jsonlText()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

export const toJsonl = (rows: unknown[]): Uint8Array =>
  new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
