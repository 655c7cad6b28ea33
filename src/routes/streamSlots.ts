// Server-Sent Events streams at the door: each holds a connection, a timer and a subscription for
// as long as the client likes, so their number is capped server-wide and per client address
// (SCORING_MAX_EVENT_STREAMS, SCORING_MAX_EVENT_STREAMS_PER_ADDRESS). A stream past either cap is a
// 429 problem with Retry-After (./events.ts).
import { normalizeIP } from '@fastify/rate-limit';
import { LimitError } from '../errors.js';

/** How long a refused client is asked to wait: streams end when their readers leave. */
const RETRY_AFTER_S = 30;

export class StreamSlots {
  private open = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly perAddress: number,
  ) {}

  /** A slot for a stream from `address`, as the function that gives it back (once); or the 429 saying why not. */
  take(address: string): (() => void) | LimitError {
    const key = normalizeIP(address);
    const mine = this.byAddress.get(key) ?? 0;
    if (this.open >= this.max)
      return refusal(`the server has ${this.max} event streams open, its most (SCORING_MAX_EVENT_STREAMS)`);
    if (mine >= this.perAddress)
      return refusal(
        `the address ${address} has ${this.perAddress} event streams open, its most ` +
          '(SCORING_MAX_EVENT_STREAMS_PER_ADDRESS); close one (one stream per competition is enough)',
      );
    this.open++;
    this.byAddress.set(key, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.open--;
      const left = (this.byAddress.get(key) ?? 1) - 1;
      if (left > 0) this.byAddress.set(key, left);
      else this.byAddress.delete(key);
    };
  }

  /** Streams open now, server-wide. */
  get count(): number {
    return this.open;
  }
}

const refusal = (detail: string) =>
  new LimitError('too_many', `${detail}; retry later`, RETRY_AFTER_S, 'too-many-streams', 'too-many-streams');
