// The identity of the code that turns stored aggregates into scores: a SHA-256 over the files of
// the scoring core (src/scoring) and of the row conversion that feeds it (src/db/scoringRows), as
// this process runs them (the .ts sources under vitest and tsx, the built .js under dist/). Scores
// saved by a server are used at the next start only if this identity is the same
// (src/db/savedScores.ts): a deploy that changes the scoring computes afresh.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PACKAGE_VERSION } from '../version.js';

let identity: string | undefined;

export function scoringCodeIdentity(): string {
  if (identity) return identity;
  const here = fileURLToPath(import.meta.url);
  const ext = here.slice(here.lastIndexOf('.'));
  const scoringDir = fileURLToPath(new URL('../scoring/', import.meta.url));
  const files = readdirSync(scoringDir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => scoringDir + f);
  files.push(fileURLToPath(new URL(`../db/scoringRows${ext}`, import.meta.url)));
  const hash = createHash('sha256').update(PACKAGE_VERSION);
  for (const file of files) hash.update(`\0${file.slice(file.lastIndexOf('/') + 1)}\0`).update(readFileSync(file));
  return (identity = hash.digest('hex'));
}
