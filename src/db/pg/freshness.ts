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
//
// The query goes on a connection of its own, not through the pool: under a warm read load it runs
// about once every dozen reads, and the pool's checkout and release around it (its queue, idle
// timers, events) cost more than the query's own client work. Measured on the whole warm
// leaderboard path (bench/pgWarm.ts, builds in turns on a loaded machine), the dedicated
// connection took about a tenth off the server's CPU a read. It also never waits for a free pooled
// connection behind busy writers. It is made from the pool's options, so it has the same bounded
// waits (connect timeout, client-side query timeout, statement timeout, keepalive); a query that
// fails drops it (a timed-out query may still be on it), and the next read opens another.
import pg from 'pg';

export interface Freshness {
  /** competition id -> version, as of a query sent after this call. */
  versions(): Promise<ReadonlyMap<string, number>>;
  /** Ends its connection; a later `versions()` opens another. */
  close(): Promise<void>;
}

const VERSIONS_SQL = 'SELECT competition_id, version FROM competition_versions';

/**
 * Prepared once per connection (named) and read as arrays: this query runs before every score read,
 * on the same two cores as the server and PostgreSQL. One config for every call.
 */
const VERSIONS_QUERY = { name: 'swe_scoring_versions', text: VERSIONS_SQL, rowMode: 'array' } as const;

/**
 * `connect` makes the unconnected client the version reads use (a test may watch it); by default
 * one with the pool's options.
 */
export function createFreshness(
  pool: pg.Pool,
  connect: () => pg.Client = () => new pg.Client(pool.options),
): Freshness {
  type Waiting = {
    promise: Promise<ReadonlyMap<string, number>>;
    resolve: (versions: ReadonlyMap<string, number>) => void;
    reject: (error: unknown) => void;
  };
  type Connection = { client: pg.Client; ready: Promise<pg.Client> };
  let inFlight: Promise<ReadonlyMap<string, number>> | undefined;
  let queued: Waiting | undefined;
  let connection: Connection | undefined;

  function drop(dropped: Connection): void {
    if (connection === dropped) connection = undefined;
    dropped.client.end().catch(() => undefined);
  }

  function open(): Connection {
    if (connection) return connection;
    const client = connect();
    const opened: Connection = { client, ready: client.connect().then(() => client) };
    // A connection that fails between queries (the server went away, an administrator ended it)
    // emits 'error', which unheard would end the process: dropped, the next read opens another.
    client.on('error', () => drop(opened));
    connection = opened;
    return opened;
  }

  async function read(): Promise<ReadonlyMap<string, number>> {
    const used = open();
    let rows: [string, number | string][];
    try {
      ({ rows } = await (await used.ready).query<[string, number | string]>(VERSIONS_QUERY));
    } catch (e) {
      drop(used);
      throw e;
    }
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
    async close() {
      const closing = connection;
      connection = undefined;
      if (closing) await closing.client.end().catch(() => undefined);
    },
  };
}
