// Per-competition write versions, read fresh from competition_versions (each write transaction
// bumps its competition's row). A process that compares them with the versions its caches were
// built at knows, with one small query, whether any process wrote since.
//
// Freshness rule: a caller that asks at time t gets the result of a query sent after t, so a read
// that follows another process's acknowledged write always sees that write's version. Concurrent
// callers share queries: at most one is in flight and one is queued; every caller arriving while
// one is in flight rides the queued one (the in-flight one may have been sent before it arrived).
import type pg from 'pg';

export interface Freshness {
  /** competition id -> version, as of a query sent after this call. */
  versions(): Promise<ReadonlyMap<string, number>>;
}

const VERSIONS_SQL = 'SELECT competition_id, version FROM competition_versions';

export function createFreshness(pool: pg.Pool): Freshness {
  let inFlight: Promise<ReadonlyMap<string, number>> | undefined;
  let queued: Promise<ReadonlyMap<string, number>> | undefined;
  let sendQueued: (() => void) | undefined;

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

  function send(): Promise<ReadonlyMap<string, number>> {
    const p = read();
    inFlight = p;
    // One synchronous step from "settled" to "the queued one is sent": no caller can slip in
    // between and start a second query in flight.
    const settled = () => {
      inFlight = undefined;
      const next = sendQueued;
      sendQueued = undefined;
      queued = undefined;
      next?.();
    };
    p.then(settled, settled);
    return p;
  }

  return {
    versions() {
      if (!inFlight) return send();
      queued ??= new Promise((resolve, reject) => {
        sendQueued = () => void send().then(resolve, reject);
      });
      return queued;
    },
  };
}
