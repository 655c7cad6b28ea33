// A JSON Lines task file of at least `minBytes`, written fast: the real fixture rows repeated with
// fresh 24-hex task ids (a string replacement per line, no JSON parsing).
import { openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url));

export function writeBigJsonl(path: string, minBytes: number): { rows: number; bytes: number } {
  const lines = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
  const fd = openSync(path, 'w');
  let rows = 0;
  let bytes = 0;
  try {
    while (bytes < minBytes) {
      const block =
        lines
          .map((line) =>
            line.replace(/"task_id": "[0-9a-f]{24}"/, `"task_id": "${(rows++).toString(16).padStart(24, '0')}"`),
          )
          .join('\n') + '\n';
      bytes += writeSync(fd, block);
    }
  } finally {
    closeSync(fd);
  }
  return { rows, bytes };
}
