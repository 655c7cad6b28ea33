// Signed requests (Epistula v2): the pure checks (src/signatures/) plus what needs storage: the
// validator holding the key, and each (key, uuid) accepted once, durably. In two steps, so that
// what costs nothing is refused before a byte of the body is read (API.md 1.2): `admit` takes the
// headers alone; the check it returns takes the body, runs sr25519 and uses up the uuid.
import type { Store } from '../db/contract.js';
import { unauthorized } from '../errors.js';
import { ephemeralServerKey } from '../serverKey.js';
import {
  createEpistulaChecks,
  DEFAULT_SIGNATURE_WINDOW_MS,
  MAX_SIGNATURE_WINDOW_MS,
  signedParts,
  verdictOf,
  type EpistulaRefused,
} from '../signatures/epistula.js';
import type { HeaderBag } from '../signatures/headers.js';
import type { Principal } from './principal.js';
import { verifyInWorker } from './verifyInWorker.js';
import type { WriteGate } from './writeGate.js';

export interface SignatureOptions {
  /**
   * The server's own ss58 address, which every signed request names in Epistula-Signed-For:
   * SCORING_SERVER_HOTKEY or the server key file's (src/serverKey.ts); a throwaway key pair's when
   * not given.
   */
  serverAddress?: string | null;
  /** SCORING_SIGNATURE_WINDOW_MS. */
  windowMs?: number;
}

/** The second step of a signed request: its body's bytes (none for an empty body) to the validator that signed it. */
export type SignedBodyCheck = (body: Uint8Array | undefined) => Promise<Principal>;

/** Entries are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000;
/**
 * How long past its timestamp a used (key, uuid) is kept: the widest window any configuration can
 * have, plus a second of clock slack. Keeping it for the window in force would let a restart with
 * a wider window accept a pair already pruned.
 */
const NONCE_KEPT_MS = MAX_SIGNATURE_WINDOW_MS + 1000;

const refused = (verdict: EpistulaRefused) =>
  unauthorized(verdict.message, verdict.reason, [
    { path: `headers/${verdict.header.toLowerCase()}`, message: verdict.message },
  ]);

export function signaturesService(store: Store, gate: WriteGate, options: SignatureOptions = {}) {
  const windowMs = options.windowMs ?? DEFAULT_SIGNATURE_WINDOW_MS;
  const serverAddress = options.serverAddress || ephemeralServerKey().address;
  // sr25519 (a few ms a request, `npm run bench:signatures`) runs on a worker thread
  // (./verifyInWorker.ts), only for a registered, active hotkey whose request passed every cheap
  // check, and within the client address's budget of failed checks (src/plugins/signatureFailures.ts).
  const checks = createEpistulaChecks({ serverAddress, windowMs });
  let lastPrune = 0;

  /** Uses up (key, uuid): false when it was used before. The only write of authentication; through the write gate. */
  const remember = (publicKeyHex: string, uuid: string, timestamp: number, now: number) =>
    gate.write(async () => {
      if (!(await store.nonces.remember(publicKeyHex, uuid, timestamp + NONCE_KEPT_MS))) return false;
      if (now - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = now;
        await store.nonces.prune(now);
      }
      return true;
    });

  return {
    serverAddress,
    windowMs,
    /**
     * The checks that need no body: header syntax, this server's address, the window, and a
     * registered, unrevoked hotkey; a 401 whose reason names the refusal otherwise. Returns the
     * check of the body: sr25519 over it, then (key, uuid) used up.
     */
    async admit(headers: HeaderBag, now: number): Promise<SignedBodyCheck> {
      const seen = checks.headers(headers, now);
      if (!seen.ok) throw refused(seen);
      const validator = await store.validators.byPublicKey(seen.publicKeyHex);
      if (!validator || validator.revokedAt !== null) {
        throw unauthorized(`no active validator has the hotkey ${seen.hotkey}`, 'unknown-hotkey', [
          { path: 'headers/epistula-signed-by', message: 'unknown or revoked hotkey' },
        ]);
      }
      const principal: Principal = { kind: 'validator', id: validator.id };
      return async (body) => {
        const verdict = verdictOf(seen, await verifyInWorker(signedParts(seen, body)));
        if (!verdict.ok) throw refused(verdict);
        if (!(await remember(verdict.publicKeyHex, verdict.uuid, verdict.timestamp, now))) {
          throw unauthorized(`Epistula-Uuid ${verdict.uuid} was already used by this hotkey`, 'signature-replayed', [
            {
              path: 'headers/epistula-uuid',
              message: 'already used: every signed request, reads included, takes a fresh uuid',
            },
          ]);
        }
        return principal;
      };
    },
  };
}
