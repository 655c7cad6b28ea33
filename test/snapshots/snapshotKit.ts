// Snapshots sealed the way the server seals them, for verify tests.
import { generateKeyPairSync } from 'node:crypto';
import { inputDigest, serializeDocument } from '../../src/snapshots/inputDocument.js';
import type { InputDocument } from '../../src/snapshots/inputSchemas.js';
import { scoreDocument } from '../../src/snapshots/scoreDocument.js';
import { sealSnapshot } from '../../src/snapshots/seal.js';
import type { Stage } from '../../src/scoring/types.js';
import { RULES_VERSION } from '../../src/scoring/index.js';

export const keys = generateKeyPairSync('ed25519');
export const publicKeyPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
export const otherPublicKeyPem = generateKeyPairSync('ed25519')
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

export function snapshotOf(
  doc: InputDocument,
  options: { seq?: number; previousHash?: string | null; stages?: Stage[] } = {},
) {
  const input = serializeDocument(doc);
  const stages = options.stages ?? doc.competition.finalStages;
  const { leaderboard, weights } = scoreDocument(doc, stages);
  // The server's settings and rules (src/services/snapshots.ts).
  const { id, excluded, tokenWeights, burnRatio, judgeVotes, finalStages } = doc.competition;
  const settings = { name: id, tokenWeights, burnRatio, judgeVotes, finalStages };
  const unsigned = {
    competitionId: id,
    seq: options.seq ?? 1,
    takenAt: '2026-12-01T12:00:00.000Z',
    stages,
    rulesVersion: RULES_VERSION,
    settings,
    excluded,
    inputDigest: inputDigest(input),
    previousHash: options.previousHash ?? null,
    leaderboard: JSON.parse(JSON.stringify(leaderboard)) as unknown,
    weights: JSON.parse(JSON.stringify(weights)) as unknown,
  };
  const snapshot = sealSnapshot(unsigned, keys.privateKey);
  return { snapshot, text: JSON.stringify(snapshot), input };
}
