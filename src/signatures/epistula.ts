// Pure verification of an Epistula v2 signed request (API.md "Validators sign with their hotkeys").
// No clock, no storage: the caller passes `now` and checks replay and the hotkey's validator itself.
// Cheap checks run first (presence, shapes, ss58 checksum, window); sr25519 runs once, last.
import { createHash } from 'node:crypto';
import { verify as scureVerify } from '@scure/sr25519';
import { readHeader, type HeaderBag } from './headers.js';
import { EPISTULA_HEADERS as H, EPISTULA_VERSION, epistulaMessage, type EpistulaHeader } from './message.js';
import { decodeSs58, ss58ToPublicKey } from './ss58.js';

/** The storage-free refusals; the auth layer adds `signature-replayed` and `unknown-hotkey`. */
export type EpistulaRefusalReason =
  'signature-missing' | 'signature-malformed' | 'signature-invalid' | 'signature-stale';

export type EpistulaAccepted = {
  ok: true;
  /** Epistula-Signed-By as sent. Different ss58 prefixes can name one key: look validators up by `publicKeyHex`. */
  hotkey: string;
  publicKey: Uint8Array;
  publicKeyHex: string;
  /** Lower-cased, so (hotkey, uuid) is a stable replay key. */
  uuid: string;
  timestamp: number;
};
export type EpistulaRefused = {
  ok: false;
  reason: EpistulaRefusalReason;
  header: EpistulaHeader | 'Authorization';
  message: string;
};
export type EpistulaVerdict = EpistulaAccepted | EpistulaRefused;

export interface EpistulaOptions {
  /** The server's own ss58 address (SCORING_SERVER_HOTKEY): Epistula-Signed-For is then required and must equal it. */
  serverAddress?: string | null;
  /** Accepted distance between Epistula-Timestamp and `now`, either way (SCORING_SIGNATURE_WINDOW_MS). */
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
  serverAddress: string | undefined;
  windowMs: number;
}

function settings(options: EpistulaOptions): Settings {
  const serverAddress = options.serverAddress || undefined;
  if (serverAddress !== undefined) ss58ToPublicKey(serverAddress);
  const windowMs = options.windowMs ?? DEFAULT_SIGNATURE_WINDOW_MS;
  if (!Number.isSafeInteger(windowMs) || windowMs < 0)
    throw new RangeError('the signature window is a non-negative integer of milliseconds');
  return { serverAddress, windowMs };
}

/** Checks the options once (a bad server address is a startup error, `Ss58Error`) and returns the verifier. */
export function createEpistulaVerifier(options: EpistulaOptions = {}): (request: EpistulaRequest) => EpistulaVerdict {
  const set = settings(options);
  const sr25519 = options.sr25519Verify ?? scureVerify;
  return (request) => {
    const seen = inspect(request, set);
    if (!seen.ok) return seen;
    return conclude(seen, signatureValid(seen.parts, sr25519));
  };
}

/** One-off form of `createEpistulaVerifier(options)(request)`. */
export function verifyEpistula(request: EpistulaRequest, options: EpistulaOptions = {}): EpistulaVerdict {
  return createEpistulaVerifier(options)(request);
}

interface Inspected {
  ok: true;
  parts: SignedParts;
  signedBy: string;
  uuid: string;
  timestamp: number;
}

function conclude(seen: Inspected, valid: boolean): EpistulaVerdict {
  if (!valid)
    return refuse(
      'signature-invalid',
      H.signature,
      `${H.signature} does not verify for ${seen.signedBy} over this body, uuid, timestamp and ${H.signedFor}`,
    );
  return {
    ok: true,
    hotkey: seen.signedBy,
    publicKey: seen.parts.publicKey,
    publicKeyHex: Buffer.from(seen.parts.publicKey).toString('hex'),
    uuid: seen.uuid,
    timestamp: seen.timestamp,
  };
}

/** Every check but the cryptographic one: presence, shapes, ss58 checksums, the window. */
function inspect(
  { headers, body, now }: EpistulaRequest,
  { serverAddress, windowMs }: Settings,
): Inspected | EpistulaRefused {
  if (readHeader(headers, 'Authorization') !== undefined) {
    return refuse('signature-malformed', 'Authorization', 'a signed request carries no Authorization header');
  }
  const required: EpistulaHeader[] = [H.version, H.timestamp, H.uuid, H.signedBy, H.signature];
  if (serverAddress !== undefined) required.push(H.signedFor);
  for (const name of required) {
    if (readHeader(headers, name) === undefined)
      return refuse('signature-missing', name, `the ${name} header is required`);
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
  const signedFor = values[H.signedFor];

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
  if (signedFor !== undefined) {
    const target = decodeSs58(signedFor);
    if (!target.ok)
      return refuse('signature-malformed', H.signedFor, `${H.signedFor} is not an ss58 address: ${target.message}`);
    if (serverAddress !== undefined && signedFor !== serverAddress) {
      return refuse('signature-invalid', H.signedFor, `${H.signedFor} names another server, not ${serverAddress}`);
    }
  }
  if (!(Math.abs(now - ms) <= windowMs)) {
    return refuse(
      'signature-stale',
      H.timestamp,
      `${H.timestamp} is ${now - ms} ms from the server's clock; at most ${windowMs} ms either way is accepted`,
    );
  }

  return {
    ok: true,
    parts: {
      // Hashed last: every cheap refusal comes before reading the whole body.
      message: Buffer.from(epistulaMessage(sha256Hex(body), uuid, timestamp, signedFor), 'utf8'),
      signature: Buffer.from(signature.slice(2), 'hex'),
      publicKey: signer.publicKey,
    },
    signedBy,
    uuid: uuid.toLowerCase(),
    timestamp: ms,
  };
}
