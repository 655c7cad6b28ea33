// The runs export as Parquet, written one row group per page of runs with hyparquet-writer's
// incremental ParquetWriter: after each row group its bytes are taken out of the writer and the
// writer's buffer is reused, so memory holds one row group, not the file. The footer (schema,
// row-group list, page indexes) grows by a few hundred bytes per row group.
import type { SchemaElement } from 'hyparquet';
import { ByteWriter, ParquetWriter, type ColumnSource } from 'hyparquet-writer';
import type { RunExportRow } from '../db/exports.js';
import { RUN_COLUMNS, type RunPages } from './runs.js';

type Physical = 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN' | 'STRING';

/** Parquet type of each column, and whether it may be null; `criteria` is JSON text (UTF-8 string). */
const TYPES: Record<(typeof RUN_COLUMNS)[number], [Physical, boolean]> = {
  seq: ['INT64', false],
  runId: ['STRING', false],
  taskId: ['STRING', false],
  kind: ['STRING', false],
  minerHotkey: ['STRING', true],
  validatorId: ['STRING', true],
  attemptNo: ['INT32', true],
  resolved: ['BOOLEAN', false],
  tokensInput: ['INT64', true],
  tokensCachedInput: ['INT64', true],
  tokensOutput: ['INT64', true],
  timeTakenSeconds: ['DOUBLE', true],
  agentSteps: ['INT64', true],
  createdAt: ['STRING', false],
  criteria: ['STRING', true],
  judgeDigest: ['STRING', true],
  answerDate: ['STRING', true],
  stale: ['BOOLEAN', false],
};

function element(name: string, [type, nullable]: [Physical, boolean]): SchemaElement {
  const repetition_type = nullable ? 'OPTIONAL' : 'REQUIRED';
  return type === 'STRING'
    ? { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type }
    : { name, type, repetition_type };
}

export const RUNS_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: RUN_COLUMNS.length },
  ...RUN_COLUMNS.map((name) => element(name, TYPES[name])),
];

/** A page of rows turned into columns; INT64 values as bigints, as the writer wants them. */
function columns(page: RunExportRow[]): ColumnSource[] {
  return RUN_COLUMNS.map((name, c) => {
    const int64 = TYPES[name][0] === 'INT64';
    const data = page.map((r) => {
      const v = c === 7 || c === 17 ? r[c] === 1 : r[c]!;
      return int64 && v !== null ? BigInt(v) : v;
    });
    return { name, data };
  });
}

/** The Parquet file's bytes, a row group per page; each piece is a fresh copy the caller may keep. */
export async function* runsParquet(pages: RunPages): AsyncGenerator<Uint8Array> {
  const writer = new ByteWriter(1 << 20);
  const take = () => {
    const bytes = writer.getBytes().slice();
    writer.index = 0;
    return bytes;
  };
  const pq = new ParquetWriter({ writer, schema: RUNS_PARQUET_SCHEMA, codec: 'SNAPPY', createdBy: 'swe-scoring' });
  for await (const page of pages) {
    // A ByteWriter has no flush(), so write() and finish() run synchronously and return nothing to await.
    void pq.write({ columnData: columns(page), rowGroupSize: page.length });
    yield take();
  }
  void pq.finish();
  yield take();
}
