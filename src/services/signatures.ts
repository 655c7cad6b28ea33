// Signed requests (Epistula v2): the pure verifier (src/signatures/) plus what needs storage: the
// validator holding the key, and each (key, uuid) accepted once, durably.
import type { Store } from '../db/store.js';
import { unauthorized } from '../errors.js';
import { createEpistulaVerifier, DEFAULT_SIGNATURE_WINDOW_MS, type EpistulaRequest } from '../signatures/epistula.js';
import type { Principal } from './principal.js';
import type { WriteGate } from './writeGate.js';

export interface SignatureOptions {
  /** SCORING_SERVER_HOTKEY: when set, Epistula-Signed-For must name it. */
  serverAddress?: string | null;
  /** SCORING_SIGNATURE_WINDOW_MS. */
  windowMs?: number;
}

/** Entries are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000;

export function signaturesService(store: Store, gate: WriteGate, options: SignatureOptions = {}) {
  const windowMs = options.windowMs ?? DEFAULT_SIGNATURE_WINDOW_MS;
  // sr25519 runs here, on the event loop (a few ms a request, `npm run bench:signatures`): a worker
  // thread's isolate for it would hold tens of MB against the server's memory bound.
  const verify = createEpistulaVerifier({ serverAddress: options.serverAddress, windowMs });
  let lastPrune = 0;

  return {
    windowMs,
    /** The validator that signed the request; a 401 whose reason names the refusal otherwise. */
    async authenticate(request: EpistulaRequest): Promise<Principal> {
      const verdict = verify(request);
      if (!verdict.ok) {
        throw unauthorized(verdict.message, verdict.reason, [
          { path: `headers/${verdict.header.toLowerCase()}`, message: verdict.message },
        ]);
      }
      const validator = await store.validators.byPublicKey(verdict.publicKeyHex);
      if (!validator || validator.revokedAt !== null) {
        throw unauthorized(`no active validator has the hotkey ${verdict.hotkey}`, 'unknown-hotkey', [
          { path: 'headers/epistula-signed-by', message: 'unknown or revoked hotkey' },
        ]);
      }
      // Kept until its timestamp can no longer pass the window (plus a second of clock slack). A
      // write: it waits while an import commits (src/services/writeGate.ts).
      const fresh = await gate.write(async () => {
        if (!(await store.nonces.remember(verdict.publicKeyHex, verdict.uuid, verdict.timestamp + windowMs + 1000)))
          return false;
        if (request.now - lastPrune > PRUNE_EVERY_MS) {
          lastPrune = request.now;
          await store.nonces.prune(request.now);
        }
        return true;
      });
      if (!fresh) {
        throw unauthorized(`Epistula-Uuid ${verdict.uuid} was already used by this hotkey`, 'signature-replayed', [
          { path: 'headers/epistula-uuid', message: 'already used' },
        ]);
      }
      return { kind: 'validator', id: validator.id };
    },
  };
}
