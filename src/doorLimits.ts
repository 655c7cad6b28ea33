// The limits at the door (API.md 1.2, docs/SECURITY.md "Limits at the door"): what one client, or
// all of them together, may hold of the server before anything it asks for is done. Each is a
// setting (src/config.ts); buildApp takes them, with these defaults for any left out.

/** Requests a principal or an address may make per rate-limit window; 0 turns the limit off. */
export interface RateLimits {
  /** SCORING_RATE_LIMIT_WINDOW: the window every count below is per (ms). */
  windowMs: number;
  /** SCORING_RATE_LIMIT_ANONYMOUS: per client address, for requests that carry no accepted credentials. */
  anonymous: number;
  /** SCORING_RATE_LIMIT_VALIDATOR: per validator (bearer key or signed hotkey alike). */
  validator: number;
  /** SCORING_RATE_LIMIT_ADMIN: for the admin token; off by default. */
  admin: number;
  /**
   * SCORING_RATE_LIMIT_SIGNATURE_FAILURES: signed requests per client address whose signature did
   * not verify (or whose uuid was used) per window; past it, the address's signed requests are
   * refused before sr25519 (src/plugins/signatureFailures.ts). 0 turns it off.
   */
  signatureFailures: number;
}

export interface DoorLimits {
  /** SCORING_BODY_TIMEOUT_MS: a request's body must have arrived this long after its headers. */
  bodyTimeoutMs: number;
  /** SCORING_MAX_INFLIGHT_BODY_BYTES: bytes of bodies still arriving, held at once, server-wide. */
  maxInflightBodyBytes: number;
  /** SCORING_MAX_CONNECTIONS: open connections; the next one is closed as it comes (Node's `maxConnections`). */
  maxConnections: number;
  /** SCORING_MAX_EVENT_STREAMS: Server-Sent Events streams open at once, server-wide. */
  maxEventStreams: number;
  /** SCORING_MAX_EVENT_STREAMS_PER_ADDRESS: the same, per client address. */
  maxEventStreamsPerAddress: number;
  rateLimits: RateLimits;
}

const MIB = 1024 * 1024;

export const DOOR_DEFAULTS: DoorLimits = {
  bodyTimeoutMs: 30_000,
  // One body at the 32 MiB body limit, with room beside it for the others' batches (a 1,000-run
  // batch is about 0.7 MB). What clients hold of the server past its working set (about 240 MB at
  // the reference competition) stays bounded by about twice this (the bytes held, and those of
  // refused bodies until they are collected), whatever they send and however slowly. Streamed
  // uploads (task files, import chunks) go to disk as they arrive and are not counted.
  maxInflightBodyBytes: 48 * MIB,
  maxConnections: 1024,
  maxEventStreams: 512,
  // A person's browser tabs; behind a shared address (an office, a proxy without
  // SCORING_TRUST_PROXY) raise it.
  maxEventStreamsPerAddress: 8,
  rateLimits: {
    windowMs: 60_000,
    // A dashboard re-reads a page's data (two or three reads) on each live event, at most four a
    // second while writes stream in: about 700 reads a minute at worst, from one viewer.
    anonymous: 1200,
    validator: 1200,
    admin: 0,
    // A validator whose requests verify never fails one; 30 refusals a minute tell a misconfigured
    // one why (each 401 says), and cost the server about 0.1 s of sr25519 a minute an address.
    signatureFailures: 30,
  },
};
