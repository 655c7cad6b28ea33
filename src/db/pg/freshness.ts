// Per-competition write versions, read fresh from competition_versions (each write transaction
// bumps its competition's row). A process that compares them with the versions its caches were
// built at knows, with one small query, whether any process wrote since.
//
// Freshness rule: a caller that asks at time t gets the result of a query sent after t, so a read
// that follows another process's acknowledged write always sees that write's version. Concurrent
// callers share queries: at most one is in flight and one is queued; every caller arriving while
// one is in flight rides the queued one (the in-flight one may have been sent before it arrived).
// When the one in flight fails, the queued callers fail with it: an unanswered database is an
// answer for them too.
import type pg from 'pg';

export interface Freshness {
  /** competition id -> version, as of a query sent after this call. */
  versions(): Promise<ReadonlyMap<string, number>>;
}

const VERSIONS_SQL = 'SELECT competition_id, version FROM competition_versions';

export function createFreshness(pool: pg.Pool): Freshness {
  type Waiting = {
    promise: Promise<ReadonlyMap<string, number>>;
    resolve: (versions: ReadonlyMap<string, number>) => void;
    reject: (error: unknown) => void;
  };
  let inFlight: Promise<ReadonlyMap<string, number>> | undefined;
  let queued: Waiting | undefined;

  async function read(): Promise<ReadonlyMap<string, number>> {
    // Prepared once per connection and read as arrays: this query runs before every score read,
    // on the same two cores as the server and PostgreSQL.
    const { rows } = await pool.query<[string, number | string]>({
      name: 'swe_scoring_versions',
      text: VERSIONS_SQL,
      rowMode: 'array',
    });
    // Number(): a pool without openPostgres's int8 parser hands bigint back as a string.
    return new Map(rows.map(([competitionId, version]) => [competitionId, Number(version)]));
  }

  // Each step from "settled" to "the queued one is sent or failed" is synchronous: no caller can
  // slip in between and start a second query in flight.
  function send(): Promise<ReadonlyMap<string, number>> {
    const p = read();
    inFlight = p;
    p.then(
      () => {
        inFlight = undefined;
        const next = queued;
        queued = undefined;
        if (next) send().then(next.resolve, next.reject);
      },
      // The database did not answer the query in flight: the callers waiting behind it get that
      // failure now rather than a second query's, so no caller waits longer than one query's
      // timeout (the outage bound, docs/POSTGRES.md), however its arrival fell.
      (error: unknown) => {
        inFlight = undefined;
        const next = queued;
        queued = undefined;
        next?.reject(error);
      },
    );
    return p;
  }

  return {
    versions() {
      if (!inFlight) return send();
      if (!queued) {
        let resolve!: Waiting['resolve'];
        let reject!: Waiting['reject'];
        const promise = new Promise<ReadonlyMap<string, number>>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        queued = { promise, resolve, reject };
      }
      return queued.promise;
    },
  };
}
