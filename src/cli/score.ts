// `swe-scoring score <input.ndjson> [--stages a,b]`: scores a snapshot input document with no
// server and no database, and prints {leaderboard, weights} as the live reads would.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseStages } from '../scoring/stages.js';
import { parseDocument } from '../snapshots/inputDocument.js';
import { scoreDocument } from '../snapshots/scoreDocument.js';
import { UsageError } from './usage.js';

export const SCORE_HELP = `Usage: swe-scoring score <input.ndjson> [--stages a,b]

Scores an input document (GET /v1/competitions/{id}/snapshots/{seq}/input, or one written by
hand in that format: docs/CANONICAL_JSON.md) and prints {"leaderboard": ..., "weights": ...}
as JSON, the same bodies as GET .../leaderboard and GET .../weights. "-" reads standard input.

  --stages a,b   stage set to score: screener_1, screener_2, evaluation (default: the
                 competition's finalStages from the document's first line)

Exit status: 0 scored; 1 the document is malformed (the message names the line and field);
2 wrong usage.`;

export function score(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { stages: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(SCORE_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('score takes one input file (see swe-scoring score --help)');
  const file = positionals[0] as string;
  const doc = parseDocument(readFileSync(file === '-' ? 0 : file, 'utf8'));
  const stages = parseStages(values.stages, doc.competition.finalStages);
  if (!stages) throw new UsageError(`--stages ${values.stages}: stages are screener_1, screener_2, evaluation`);
  // Serialized as built, as POST /v1/score sends it: the same JSON, byte for byte, keeping every
  // hotkey (a zod record would drop one named `__proto__`).
  process.stdout.write(`${JSON.stringify(scoreDocument(doc, stages))}\n`);
  return 0;
}
