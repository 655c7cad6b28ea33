// Pure verification of an Epistula v2 signed request (API.md 1.1 "Validators sign with their
// hotkeys", 1.2 "signatures bound to it"). No clock, no storage: the caller passes `now` and checks
// replay and the hotkey's validator itself. In two steps, so the caller can refuse cheaply before it
// reads a body: `headers` (presence, shapes, ss58 checksums, the server's address, the window) needs
// no body; `body` hashes the body and runs sr25519 once, last.
import { createHash } from 'node:crypto';
import { verify as scureVerify } from '@scure/sr25519';
import { readHeader, type HeaderBag } from './headers.js';
import { EPISTULA_HEADERS as H, EPISTULA_VERSION, epistulaMessage, type EpistulaHeader } from './message.js';
import { decodeSs58, ss58ToPublicKey } from './ss58.js';

/** The storage-free refusals; the auth layer adds `signature-replayed` and `unknown-hotkey`. */
export type EpistulaRefusalReason =
  'signature-missing' | 'signature-malformed' | 'signature-invalid' | 'signature-stale';

/** A request whose every check passed: who signed it, with which uuid and timestamp. */
export type EpistulaAccepted = Omit<EpistulaHeadersAccepted, 'signed'>;
export type EpistulaRefused = {
  ok: false;
  reason: EpistulaRefusalReason;
  header: EpistulaHeader | 'Authorization';
  message: string;
};
export type EpistulaVerdict = EpistulaAccepted | EpistulaRefused;

export interface EpistulaOptions {
  /**
   * The server's own ss58 address (SCORING_SERVER_HOTKEY, or the generated server key's):
   * Epistula-Signed-For is required and must equal it, so a request signed for another address (a
   * miner's, say) cannot be replayed here.
   */
  serverAddress: string;
  /** Accepted distance between Epistula-Timestamp and `now`, either way (SCORING_SIGNATURE_WINDOW_MS), at most MAX_SIGNATURE_WINDOW_MS. */
  windowMs?: number;
  /**
   * The sr25519 check (signing context "substrate"); default `@scure/sr25519`'s `verify`. Another
   * audited implementation with the same contract can be passed in; a throw counts as "invalid".
   */
  sr25519Verify?: Sr25519Verify;
}

export type Sr25519Verify = (message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array) => boolean;

export interface EpistulaRequest {
  headers: HeaderBag;
  /** The exact body bytes as received (not re-serialized JSON); absent or null for an empty body. */
  body?: Uint8Array | string | null;
  /** The server's clock, Unix milliseconds. */
  now: number;
}

export const DEFAULT_SIGNATURE_WINDOW_MS = 8_000;
/**
 * The widest window a server may be configured with. Used (hotkey, uuid) pairs are kept for this
 * long past their timestamp whatever the window in force, so raising the window across a restart
 * re-opens no replay.
 */
export const MAX_SIGNATURE_WINDOW_MS = 600_000;

const TIMESTAMP = /^(0|[1-9][0-9]{0,15})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIGNATURE = /^0x[0-9a-fA-F]{128}$/;

const refuse = (
  reason: EpistulaRefusalReason,
  header: EpistulaRefused['header'],
  message: string,
): EpistulaRefused => ({
  ok: false,
  reason,
  header,
  message,
});

/**
 * Why a timestamp is outside the window, in the validator's terms: which way its clock is off and
 * by how much, the server's time to compare with, and a timestamp sent in seconds named as such
 * (Unix seconds are a thousand times smaller: about 1.8e9 against 1.8e12).
 */
function staleDetail(now: number, ms: number, windowMs: number): string {
  const off = Math.abs(now - ms);
  const way = ms < now ? 'behind' : 'ahead of';
  const seconds =
    Math.abs(now - ms * 1000) <= 24 * 3_600_000 ? ': this is Unix time in seconds: send milliseconds' : '';
  return (
    `${H.timestamp} is ${off} ms ${way} the server's clock (${now} ms)${seconds}; ` +
    `at most ${windowMs} ms either way is accepted`
  );
}

/** What the sr25519 check needs: the signed message (body hash and headers), the signature and the key. */
export interface SignedParts {
  /** `epistulaMessage(sha256 hex of the body, uuid, timestamp, signedFor)` as UTF-8: a few hundred bytes. */
  message: Uint8Array;
  signature: Uint8Array;
  publicKey: Uint8Array;
}

/**
 * sr25519 over the Epistula message: the costly part of a check (about 2 ms; bench:signatures).
 * The body is hashed before, where it was read (a 1,000-run batch is ~0.6 MB); only the message,
 * a few hundred bytes, is verified.
 */
export function signatureValid(p: SignedParts, sr25519: Sr25519Verify = scureVerify): boolean {
  try {
    return sr25519(p.message, p.signature, p.publicKey);
  } catch {
    return false; // a point that does not decode, or a signature without schnorrkel's marker bit
  }
}

const sha256Hex = (body: Uint8Array | string | null | undefined) =>
  createHash('sha256')
    .update(body ?? '')
    .digest('hex');

interface Settings {
  serverAddress: string;
  windowMs: number;
}

function settings(options: EpistulaOptions): Settings {
  const { serverAddress } = options;
  ss58ToPublicKey(serverAddress);
  const windowMs = options.windowMs ?? DEFAULT_SIGNATURE_WINDOW_MS;
  if (!Number.isSafeInteger(windowMs) || windowMs < 0 || windowMs > MAX_SIGNATURE_WINDOW_MS)
    throw new RangeError(`the signature window is an integer of milliseconds from 0 to ${MAX_SIGNATURE_WINDOW_MS}`);
  return { serverAddress, windowMs };
}

/** A request whose headers passed every check that needs no body. */
export interface EpistulaHeadersAccepted {
  ok: true;
  /** Epistula-Signed-By as sent. */
  hotkey: string;
  publicKey: Uint8Array;
  /** The key in hex: look validators up by it (different ss58 prefixes can name one key). */
  publicKeyHex: string;
  /** Lower-cased, so (hotkey, uuid) is a stable replay key. */
  uuid: string;
  timestamp: number;
  /** The message's parts as they travel (uuid and timestamp exactly as sent), and the signature. */
  signed: { uuid: string; timestamp: string; signedFor: string; signature: Uint8Array };
}

export interface EpistulaChecks {
  /** Every check but the cryptographic one, with no body: presence, shapes, ss58 checksums, the server's address, the window. */
  headers(headers: HeaderBag, now: number): EpistulaHeadersAccepted | EpistulaRefused;
  /** The body's hash and sr25519 over the message: the costly part, run once the cheap checks passed. */
  body(seen: EpistulaHeadersAccepted, body: Uint8Array | string | null | undefined): EpistulaVerdict;
}

/** What sr25519 checks for a request whose headers passed: the message over its body's hash, the signature, the key. */
export function signedParts(seen: EpistulaHeadersAccepted, body: Uint8Array | string | null | undefined): SignedParts {
  const { uuid, timestamp, signedFor, signature } = seen.signed;
  const message = Buffer.from(epistulaMessage(sha256Hex(body), uuid, timestamp, signedFor), 'utf8');
  return { message, signature, publicKey: seen.publicKey };
}

/** Checks the options once (a bad server address is a startup error, `Ss58Error`) and returns the two steps. */
export function createEpistulaChecks(options: EpistulaOptions): EpistulaChecks {
  const set = settings(options);
  const sr25519 = options.sr25519Verify ?? scureVerify;
  return {
    headers: (headers, now) => inspect(headers, now, set),
    body: (seen, body) => verdictOf(seen, signatureValid(signedParts(seen, body), sr25519)),
  };
}

/** Both steps at once, for a request whose body is in hand. */
export function createEpistulaVerifier(options: EpistulaOptions): (request: EpistulaRequest) => EpistulaVerdict {
  const checks = createEpistulaChecks(options);
  return (request) => {
    const seen = checks.headers(request.headers, request.now);
    return seen.ok ? checks.body(seen, request.body) : seen;
  };
}

/** One-off form of `createEpistulaVerifier(options)(request)`. */
export function verifyEpistula(request: EpistulaRequest, options: EpistulaOptions): EpistulaVerdict {
  return createEpistulaVerifier(options)(request);
}

/** The verdict on a request whose headers passed, once sr25519 has said whether its signature holds. */
export function verdictOf(seen: EpistulaHeadersAccepted, valid: boolean): EpistulaVerdict {
  if (!valid)
    return refuse(
      'signature-invalid',
      H.signature,
      `${H.signature} does not verify for ${seen.hotkey} over this body, uuid, timestamp and ${H.signedFor}`,
    );
  const { hotkey, publicKey, publicKeyHex, uuid, timestamp } = seen;
  return { ok: true, hotkey, publicKey, publicKeyHex, uuid, timestamp };
}

/** Where a client learns the address to sign for. */
const signFor = (serverAddress: string) =>
  `sign for this server's address ${serverAddress} (GET /v1/identity gives it as hotkey)`;

/** Every check but the cryptographic one: presence, shapes, ss58 checksums, the server's address, the window. */
function inspect(
  headers: HeaderBag,
  now: number,
  { serverAddress, windowMs }: Settings,
): EpistulaHeadersAccepted | EpistulaRefused {
  if (readHeader(headers, 'Authorization') !== undefined) {
    return refuse('signature-malformed', 'Authorization', 'a signed request carries no Authorization header');
  }
  const required: EpistulaHeader[] = [H.version, H.timestamp, H.uuid, H.signedBy, H.signedFor, H.signature];
  for (const name of required) {
    if (readHeader(headers, name) !== undefined) continue;
    const why = name === H.signedFor ? `: ${signFor(serverAddress)}` : '';
    return refuse('signature-missing', name, `the ${name} header is required${why}`);
  }
  const values = {} as Record<EpistulaHeader, string | undefined>;
  for (const name of Object.values(H)) {
    const value = readHeader(headers, name);
    if (value === null) return refuse('signature-malformed', name, `the ${name} header is sent more than once`);
    values[name] = value;
  }
  const version = values[H.version]!;
  const timestamp = values[H.timestamp]!;
  const uuid = values[H.uuid]!;
  const signedBy = values[H.signedBy]!;
  const signature = values[H.signature]!;
  const signedFor = values[H.signedFor]!;

  if (version !== EPISTULA_VERSION)
    return refuse('signature-malformed', H.version, `${H.version} must be ${EPISTULA_VERSION}`);
  const ms = TIMESTAMP.test(timestamp) ? Number(timestamp) : NaN;
  if (!Number.isSafeInteger(ms))
    return refuse('signature-malformed', H.timestamp, `${H.timestamp} must be Unix time in milliseconds (digits only)`);
  if (!UUID.test(uuid))
    return refuse('signature-malformed', H.uuid, `${H.uuid} must be a UUID (8-4-4-4-12 hex digits)`);
  if (!SIGNATURE.test(signature))
    return refuse('signature-malformed', H.signature, `${H.signature} must be 0x and 128 hex digits`);
  const signer = decodeSs58(signedBy);
  if (!signer.ok)
    return refuse('signature-malformed', H.signedBy, `${H.signedBy} is not an ss58 address: ${signer.message}`);
  if (signedFor !== serverAddress) {
    // Sent empty: signed for no one, as the message spells it (`{signedFor or empty}`), like a header left out.
    if (signedFor === '')
      return refuse('signature-missing', H.signedFor, `the ${H.signedFor} header is empty: ${signFor(serverAddress)}`);
    // Decoded only when it differs, to say whether it names an address at all.
    const target = decodeSs58(signedFor);
    if (!target.ok)
      return refuse(
        'signature-malformed',
        H.signedFor,
        `${H.signedFor} is not an ss58 address (${target.message}): ${signFor(serverAddress)}`,
      );
    return refuse(
      'signature-invalid',
      H.signedFor,
      `${H.signedFor} names ${signedFor}, not this server: ${signFor(serverAddress)}`,
    );
  }
  if (!(Math.abs(now - ms) <= windowMs)) {
    return refuse('signature-stale', H.timestamp, staleDetail(now, ms, windowMs));
  }

  return {
    ok: true,
    hotkey: signedBy,
    publicKey: signer.publicKey,
    publicKeyHex: Buffer.from(signer.publicKey).toString('hex'),
    uuid: uuid.toLowerCase(),
    timestamp: ms,
    signed: { uuid, timestamp, signedFor, signature: Buffer.from(signature.slice(2), 'hex') },
  };
}
