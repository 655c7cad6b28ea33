// Validator liveness (SPEC 13): when a validator last sent a heartbeat, what version it runs, and
// whether it has gone quiet. A silent validator is shown as such, never removed.

/** SCORING_VALIDATOR_SILENT_AFTER_MS's default: an hour without a heartbeat. */
export const DEFAULT_SILENT_AFTER_MS = 60 * 60 * 1000;

export interface Liveness {
  lastSeen: string | null;
  version: string | null;
  silent: boolean;
}

/** A validator's liveness at `now` (ms): silent when it never sent a heartbeat, or not for `silentAfterMs`. */
export function liveness(
  v: { lastSeenAt: string | null; version: string | null },
  silentAfterMs: number,
  now: number,
): Liveness {
  const seen = v.lastSeenAt === null ? Number.NaN : Date.parse(v.lastSeenAt);
  return {
    lastSeen: v.lastSeenAt,
    version: v.version,
    silent: !(now - seen <= silentAfterMs),
  };
}
