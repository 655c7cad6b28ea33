// The formats an export can be asked for: the query schemas (src/schemas/exports.ts) offer them,
// the exports service (src/services/exports.ts) encodes them.
export const RUN_EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export const TASK_EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type RunExportFormat = (typeof RUN_EXPORT_FORMATS)[number];
export type TaskExportFormat = (typeof TASK_EXPORT_FORMATS)[number];
