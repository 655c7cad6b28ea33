// `swe-scoring score <input.ndjson> [--stages a,b]`: scores a snapshot input document with no
// server and no database, and prints {leaderboard, weights} (and the weights on chain, with a
// metagraph) as the live reads would.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseStages } from '../scoring/stages.js';
import { parseDocument } from '../snapshots/inputDocument.js';
import { scoreDocument } from '../snapshots/scoreDocument.js';
import { UsageError } from './usage.js';

export const SCORE_HELP = `Usage: swe-scoring score <input.ndjson> [--stages a,b]

Scores an input document (GET /v1/competitions/{id}/snapshots/{seq}/input, or one written by
hand in that format: docs/CANONICAL_JSON.md) and prints {"leaderboard": ..., "weights": ...}
as JSON: the bytes POST /v1/score answers for the same document, holding the values of
GET .../leaderboard and GET .../weights, and "chain", those of GET .../weights/chain, when the
document carries a metagraph. "-" reads standard input.

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
  // hotkey (a zod record would drop one named `__proto__`). Redirected to a file it is exactly the
  // API's body (`cmp` equal); a terminal gets a final newline for its prompt.
  const json = JSON.stringify(scoreDocument(doc, stages));
  process.stdout.write(process.stdout.isTTY ? `${json}\n` : json);
  return 0;
}
