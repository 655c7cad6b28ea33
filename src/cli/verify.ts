// `swe-scoring verify <snapshot.json> <input.ndjson> [--public-key key.pem | --identity identity.json]
// [--previous prev.json]`:
// checks a published snapshot against its input with no server: every check on its own line,
// exit status 1 naming the checks that failed.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { keyForSnapshot } from '../snapshots/identityKey.js';
import { verifySnapshot } from '../snapshots/verifySnapshot.js';
import { UsageError } from './usage.js';

export const VERIFY_HELP = `Usage: swe-scoring verify <snapshot.json> <input.ndjson>
                          [--public-key key.pem | --identity identity.json] [--previous prev.json]

Checks a snapshot (GET .../snapshots/{seq}) against its input document (GET .../snapshots/{seq}/input):

  digest       SHA-256 of the input file's bytes is the snapshot's inputDigest
  hash         SHA-256 of the snapshot's canonical JSON (without hash and signature) is its hash
  chain        with --previous: previousHash is the hash of that earlier snapshot
  signature    with --public-key or --identity: the Ed25519 signature of the hash verifies
  input        the input document is well formed and is the snapshot's competition
  weights      rescoring the input for the snapshot's stages gives its weights exactly
  leaderboard  ... and its leaderboard exactly (the first differing miner is named)
  onChain      with a metagraph in the input: its digest is the snapshot's metagraphDigest, and
               rescoring gives the weights on chain exactly (the first differing uid is named);
               skipped for a snapshot taken with no metagraph recorded

  --public-key FILE   the server's public key, SPKI PEM
  --identity FILE     the server's identity document (the body of GET /v1/identity): the key it
                      lists as signing the snapshot's competition and seq is used
  --previous FILE     the snapshot before this one, to check the chain link

Exit status: 0 every check made passed; 1 a check failed (named on standard error); 2 wrong usage.`;

const LABEL = { true: 'ok', false: 'FAILED', null: 'skipped' } as const;

export function verify(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'public-key': { type: 'string' },
      identity: { type: 'string' },
      previous: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(VERIFY_HELP);
    return 0;
  }
  if (positionals.length !== 2) {
    throw new UsageError('verify takes a snapshot file and an input file (see swe-scoring verify --help)');
  }
  const [snapshotFile, inputFile] = positionals as [string, string];
  if (values['public-key'] !== undefined && values.identity !== undefined)
    throw new UsageError('verify takes --public-key or --identity, not both');
  const snapshot = readFileSync(snapshotFile);
  const publicKeyPem =
    values.identity !== undefined
      ? identityKey(snapshot, values.identity)
      : values['public-key'] !== undefined
        ? readFileSync(values['public-key'], 'utf8')
        : undefined;
  if (publicKeyPem === null) return 1;
  const result = verifySnapshot({
    snapshot,
    input: readFileSync(inputFile),
    ...(publicKeyPem !== undefined ? { publicKeyPem } : {}),
    ...(values.previous !== undefined ? { previousSnapshot: readFileSync(values.previous) } : {}),
  });
  for (const c of result.checks) console.log(`${LABEL[`${c.ok}`].padEnd(8)}${c.name.padEnd(12)}${c.message}`);
  if (result.ok) return 0;
  const failed = result.checks.filter((c) => c.ok === false);
  console.error(`verification failed: ${failed.map((c) => `${c.name} (${c.message})`).join('; ')}`);
  return 1;
}

/** The key the identity document lists for the snapshot; null (said on standard error) when none. */
function identityKey(snapshot: Buffer, identityFile: string): string | null {
  try {
    const { competitionId, seq } = JSON.parse(snapshot.toString('utf8')) as { competitionId: string; seq: number };
    const text = readFileSync(identityFile, 'utf8');
    let identity: unknown;
    try {
      identity = JSON.parse(text);
    } catch {
      const pem = text.trimStart().startsWith('-----BEGIN');
      throw new Error(
        pem
          ? 'a PEM key, not an identity document: give it as --public-key, or give --identity the body of GET /v1/identity'
          : 'not JSON: --identity takes the body of GET /v1/identity',
      );
    }
    return keyForSnapshot(identity, competitionId, seq);
  } catch (e) {
    console.error(`verification failed: signature (${identityFile}: ${(e as Error).message})`);
    return null;
  }
}
