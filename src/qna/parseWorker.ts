// Worker thread entry: parses and validates import files off the main thread, so a large import
// does not stall the server's event loop. For each job `{id, path, format}` it sends `{id, tasks}`
// batches, then `{id, done}` (or `{id, failed}`).
import { parentPort } from 'node:worker_threads';
import { parseQnaFile } from './parseFile.js';
import type { QnaImportFormat } from './parseImport.js';

const port = parentPort!;
port.on('message', ({ id, path, format }: { id: number; path: string; format: QnaImportFormat }) => {
  parseQnaFile(path, format, (tasks) => port.postMessage({ id, tasks })).then(
    (done) => port.postMessage({ id, done }),
    (error: unknown) => port.postMessage({ id, failed: error instanceof Error ? error.message : String(error) }),
  );
});
