// Snapshots sealed the way the server seals them, for verify tests.
import { generateKeyPairSync } from 'node:crypto';
import { inputDigest, serializeDocument } from '../../src/snapshots/inputDocument.js';
import type { InputDocument } from '../../src/snapshots/inputSchemas.js';
import { scoreDocument } from '../../src/snapshots/scoreDocument.js';
import { sealSnapshot } from '../../src/snapshots/seal.js';
import type { Stage } from '../../src/scoring/types.js';

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
  const { id, excluded, ...settings } = doc.competition;
  const unsigned = {
    competitionId: id,
    seq: options.seq ?? 1,
    takenAt: '2026-12-01T12:00:00.000Z',
    stages,
    rulesVersion: '1',
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
