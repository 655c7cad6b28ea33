// Parsing and validating SWE-Atlas-QnA-AA rows (no HTTP, no database).
export { complexityForRubricSize, type QnaComplexity } from './complexity.js';
export { parseQnaImport, type QnaImportFormat, type QnaImportResult } from './parseImport.js';
export { QnaImportError, type QnaProblem } from './problems.js';
export { normalizeParquetValue, readJsonLines, readParquetRows, type JsonLinesResult } from './readRows.js';
export { qnaRowSchema, type QnaRow } from './rowSchema.js';
export * from './types.js';
export { validateQnaRows, type QnaRowProblem, type QnaValidation } from './validateRows.js';
