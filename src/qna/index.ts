// Parsing and validating SWE-Atlas-QnA-AA rows (no HTTP, no database).
export { complexityForRubricSize } from './complexity.js';
export { parseQnaImport } from './parseImport.js';
export { QnaImportError } from './problems.js';
export { normalizeParquetValue, readJsonLines, readParquetRows } from './readRows.js';
export * from './types.js';
export { validateQnaRows } from './validateRows.js';
