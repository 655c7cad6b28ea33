// Writers to one competition take turns in this process before they take a connection. Their
// transactions would take turns anyway, on the competition's row in competition_versions
// (src/db/pg/store.ts); but a writer waiting there holds a pooled connection, and a pool full of
// writers queued on one row has none left for anything else: not the signature and key lookups of
// the next requests, not the reads. Here a writer waits with no connection and no transaction,
// first come first served, for a stated time at most; past it the request is a 503 the client may
// retry. Writers to different competitions do not wait for one another.
import { unavailable } from '../../errors.js';

interface Turns {
  /** Resolves once it is the caller's turn on `key`, with the function that ends the turn. */
  take(key: string): Promise<() => void>;
}

interface Line {
  /** Callers waiting, in arrival order; each is admitted by calling it. */
  queue: (() => void)[];
}

export function createTurns(waitMs: number): Turns {
  /** A key is here while someone holds its turn; its queue holds those waiting after. */
  const lines = new Map<string, Line>();

  function pass(key: string, line: Line): void {
    const next = line.queue.shift();
    if (next) next();
    else lines.delete(key);
  }

  function ender(key: string, line: Line): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      pass(key, line);
    };
  }

  return {
    take(key) {
      const held = lines.get(key);
      if (!held) {
        const line: Line = { queue: [] };
        lines.set(key, line);
        return Promise.resolve(ender(key, line));
      }
      return new Promise((resolve, reject) => {
        const admit = () => {
          clearTimeout(timer);
          resolve(ender(key, held));
        };
        const timer = setTimeout(() => {
          const at = held.queue.indexOf(admit);
          if (at >= 0) held.queue.splice(at, 1);
          reject(
            unavailable(
              `the competition's other writes in this server did not finish within ${waitMs} ms; retry the request shortly`,
              'write-queue-timeout',
            ),
          );
        }, waitMs);
        held.queue.push(admit);
      });
    },
  };
}
