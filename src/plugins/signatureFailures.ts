// Failed signature checks, counted by client address (docs/SECURITY.md "Limits at the door").
//
// Checking a signature is the one costly step of a signed request (sr25519, 2 to 4 ms of CPU, on a
// worker thread), and it runs for any request naming a registered hotkey: validators' hotkeys are public (on
// chain), so anyone can make the server run it, as often as they can send requests. A check that
// fails (a signature that does not verify, a uuid used before) counts against the address that
// sent it; past `max` failures in a window, that address's signed requests are refused on their
// headers, before their body is read and before sr25519 (a 429 with Retry-After), until the window
// ends. A validator whose requests verify never fails; one that signs wrongly is told why by its
// first 401s. Requests refused on their headers alone (malformed, stale, an unknown hotkey) cost
// nothing and are not counted.
import { normalizeIP } from '@fastify/rate-limit';
import { LimitError } from '../errors.js';

/** Addresses whose counts are kept; the least recently failed go first (as the rate limits keep theirs). */
const KEPT = 10_000;

export interface SignatureFailureBudget {
  /** The 429 to answer when `ip` has no failed checks left in this window, else null. */
  refusal(ip: string, now: number): LimitError | null;
  /** Counts one failed check from `ip`. */
  failed(ip: string, now: number): void;
}

/** The budget of `max` failed checks an address per `windowMs` (fixed windows from each address's first failure). */
export function signatureFailureBudget(max: number, windowMs: number): SignatureFailureBudget {
  const counts = new Map<string, { failures: number; resetAt: number }>();
  const current = (key: string, now: number) => {
    const c = counts.get(key);
    if (c && c.resetAt <= now) {
      counts.delete(key);
      return undefined;
    }
    return c;
  };
  return {
    refusal(ip, now) {
      const c = current(normalizeIP(ip), now);
      if (!c || c.failures < max) return null;
      const retryAfter = Math.max(1, Math.ceil((c.resetAt - now) / 1000));
      return new LimitError(
        'too_many',
        `the address ${ip} sent ${c.failures} signed requests whose signature or uuid was refused in the window ` +
          `(at most ${max}, SCORING_RATE_LIMIT_SIGNATURE_FAILURES): its signed requests are refused for ${retryAfter} s; ` +
          'sign each request over its exact body, for this server, with a fresh uuid',
        retryAfter,
        undefined,
        'signature-failures',
      );
    },
    failed(ip, now) {
      const key = normalizeIP(ip);
      const c = current(key, now);
      // Deleted and set again: the Map's order is then the order of the last failure.
      counts.delete(key);
      counts.set(key, c ? { failures: c.failures + 1, resetAt: c.resetAt } : { failures: 1, resetAt: now + windowMs });
      if (counts.size > KEPT) counts.delete(counts.keys().next().value!);
    },
  };
}
