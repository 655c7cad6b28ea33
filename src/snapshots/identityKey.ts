// The key that signed a snapshot, picked from the server's identity document (GET /v1/identity):
// the listed key whose range holds the snapshot's competition and seq. Pure; used by `verify
// --identity`.

interface ListedKey {
  fingerprint?: unknown;
  publicKey?: unknown;
  snapshots?: { competitionId?: unknown; firstSeq?: unknown; lastSeq?: unknown }[];
}

/** The SPKI PEM of the key that signed snapshot `seq` of `competitionId`; throws naming what is missing. */
export function keyForSnapshot(identity: unknown, competitionId: string, seq: number): string {
  const keys = (identity as { signingKeys?: unknown } | null)?.signingKeys;
  if (!Array.isArray(keys))
    throw new Error('the identity document has no signingKeys list (the body of GET /v1/identity expected)');
  for (const k of keys as ListedKey[]) {
    const holds = (k.snapshots ?? []).some(
      (r) =>
        r.competitionId === competitionId &&
        typeof r.firstSeq === 'number' &&
        typeof r.lastSeq === 'number' &&
        r.firstSeq <= seq &&
        seq <= r.lastSeq,
    );
    if (holds && typeof k.publicKey === 'string') return k.publicKey;
  }
  throw new Error(
    `the identity document names no key for snapshot ${seq} of competition ${competitionId}: ` +
      'fetch GET /v1/identity again after the snapshot was taken',
  );
}
