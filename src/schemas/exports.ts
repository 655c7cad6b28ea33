import { z } from 'zod';
import { RUN_EXPORT_FORMATS, TASK_EXPORT_FORMATS } from '../exports/formats.js';

export const RunExportQuery = z.strictObject({
  format: z
    .enum(RUN_EXPORT_FORMATS)
    .default('ndjson')
    .describe(
      '`ndjson` (default), `csv` (RFC 4180, CRLF, header row) or `parquet` (Snappy, a row group per 2,000 runs).',
    ),
});

export const TaskExportQuery = z.strictObject({
  format: z
    .enum(TASK_EXPORT_FORMATS)
    .default('ndjson')
    .describe('`ndjson` (default) or `csv` (RFC 4180, CRLF, header row).'),
});

export const ExportBodySchema = z.string().describe('The export file, streamed.');
