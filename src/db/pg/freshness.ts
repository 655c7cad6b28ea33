// Per-competition write versions, read fresh from competition_versions (each write transaction
// bumps its competition's row). A process that compares them with the versions its caches were
// built at knows, with one small query, whether any process wrote since.
//
// Freshness rule: a caller that asks at time t gets the result of a query sent after t, so a read
// that follows another process's acknowledged write always sees that write's version. Concurrent
// callers share queries: at most one is in flight and one is queued; every caller arriving while
// one is in flight rides the queued one (the in-flight one may have been sent before it arrived).
// With none in flight the queued one is sent at the end of the event loop's turn (setImmediate),
// not by its first caller: the requests read from other sockets in the same turn ride it too. On
// the warm leaderboard under wrk (bench/pgWarm.ts) that made 14.5 to 16 reads a query instead of
// 10 to 12. When the one in flight fails, the queued callers fail with it: an unanswered database
// is an answer for them too.
//
// The query goes on a connection of its own, not through the pool: under a warm read load it runs
// about once every 12 to 16 reads, and the pool's checkout and release around it (its queue, idle
// timers, events) cost more than the query's own client work. Measured on the whole warm
// leaderboard path (bench/pgWarm.ts, builds in turns on a loaded machine), the dedicated
// connection took about a tenth off the server's CPU a read. It also never waits for a free pooled
// connection behind busy writers. It is made from the pool's options, so it has the same bounded
// waits (connect timeout, client-side query timeout, statement timeout, keepalive); a query that
// fails drops it (a timed-out query may still be on it), and the next read opens another.
import pg from 'pg';
import { applicationName } from '../applicationName.js';
import { endBounded } from './client.js';

export interface Freshness {
  /** competition id -> version, as of a query sent after this call. */
  versions(): Promise<ReadonlyMap<string, number>>;
  /** Ends its connection; a later `versions()` opens another. */
  close(): Promise<void>;
}

const VERSIONS_SQL = 'SELECT competition_id, version FROM competition_versions';
const STATEMENT = 'swe_scoring_versions';

/** One frontend message of the extended query protocol: its type byte, length, then its body. */
function message(type: string, ...body: (string | number)[]): Buffer {
  const parts = body.map((part) => {
    if (typeof part === 'number') return Buffer.from([(part >> 8) & 0xff, part & 0xff]); // Int16
    return Buffer.from(`${part}\0`, 'utf8'); // String
  });
  const length = Buffer.alloc(4);
  length.writeInt32BE(4 + parts.reduce((n, part) => n + part.length, 0));
  return Buffer.concat([Buffer.from(type, 'latin1'), length, ...parts]);
}
/** Bind the prepared statement (no parameters, every column as text), run it whole, Sync. */
const EXECUTE = Buffer.concat([
  message('B', '', STATEMENT, 0, 0, 0),
  message('E', '', 0, 0), // Int32 0: every row
  message('S'),
]);
/** The same, after preparing the statement: the first read on a connection. */
const PREPARE_AND_EXECUTE = Buffer.concat([message('P', STATEMENT, VERSIONS_SQL, 0), EXECUTE]);

/**
 * The version read as a pg submittable: the client queues it, times it out (the pool's
 * `query_timeout`) and fails it with its connection, as any query; it writes its messages in one
 * write and keeps each row as it comes. Against a named query config (pg's Query), it skips what
 * this one query does not need and costs on every read, on the cores the server shares with
 * PostgreSQL: the config's copy, a Describe and its row description, the result object and its
 * row parsers, the promise. The statement is prepared on a connection's first read.
 */
class VersionsRead implements pg.Submittable {
  /** pg reads these: a named statement's text, kept in its statement cache. */
  readonly name = STATEMENT;
  readonly text = VERSIONS_SQL;
  private readonly versions = new Map<string, number>();
  constructor(
    private readonly prepare: boolean,
    /** pg replaces it with a no-op once it has failed the read (its timeout): called at most once. */
    public callback: (error: Error | null, versions?: ReadonlyMap<string, number>) => void,
  ) {}
  submit(connection: pg.Connection): void {
    connection.stream.write(this.prepare ? PREPARE_AND_EXECUTE : EXECUTE);
  }
  handleDataRow({ fields }: { fields: (string | null)[] }): void {
    this.versions.set(fields[0]!, Number(fields[1]));
  }
  handleCommandComplete(): void {}
  handleReadyForQuery(): void {
    const callback = this.callback;
    this.callback = () => undefined;
    callback(null, this.versions);
  }
  handleError(error: Error): void {
    const callback = this.callback;
    this.callback = () => undefined;
    callback(error);
  }
  // Not answered to this statement; each fails it rather than leave it waiting.
  handleRowDescription(): void {
    this.handleError(new Error('version read: unexpected row description'));
  }
  handleEmptyQuery(): void {
    this.handleError(new Error('version read: empty query'));
  }
  handlePortalSuspended(): void {
    this.handleError(new Error('version read: portal suspended'));
  }
  handleCopyInResponse(): void {
    this.handleError(new Error('version read: copy'));
  }
  handleCopyData(): void {}
}

/**
 * `connect` makes the unconnected client the version reads use (a test may watch it); by default
 * one with the pool's options under the version reads' name without a label (../applicationName.ts).
 */
export function createFreshness(
  pool: pg.Pool,
  connect: () => pg.Client = () => new pg.Client({ ...pool.options, application_name: applicationName('versions') }),
  /** Its connection, once connected, was lost (the server went away, a read failed on it). */
  onLost: (err: unknown) => void = () => {},
): Freshness {
  type Waiting = {
    promise: Promise<ReadonlyMap<string, number>>;
    resolve: (versions: ReadonlyMap<string, number>) => void;
    reject: (error: unknown) => void;
  };
  /** `prepared`: the statement is there (a read on it succeeded); `connected`: it connected. */
  type Connection = {
    client: pg.Client;
    ready: Promise<pg.Client>;
    prepared: boolean;
    connected: boolean;
    lost?: true;
  };
  let inFlight = false;
  let queued: Waiting | undefined;
  let connection: Connection | undefined;

  function drop(dropped: Connection, err: unknown): void {
    if (dropped.connected && !dropped.lost) {
      dropped.lost = true;
      onLost(err);
    }
    if (connection === dropped) connection = undefined;
    dropped.client.end().catch(() => undefined);
  }

  function open(): Connection {
    if (connection) return connection;
    const client = connect();
    const opened: Connection = {
      client,
      ready: client.connect().then(() => {
        opened.connected = true;
        return client;
      }),
      prepared: false,
      connected: false,
    };
    // A connection that fails between queries (the server went away, an administrator ended it)
    // emits 'error', which unheard would end the process: dropped, the next read opens another.
    client.on('error', (err) => drop(opened, err));
    connection = opened;
    return opened;
  }

  function read(): Promise<ReadonlyMap<string, number>> {
    const used = open();
    return used.ready.then(
      (client) =>
        new Promise((resolve, reject) => {
          client.query(
            new VersionsRead(!used.prepared, (error, versions) => {
              if (error) {
                drop(used, error);
                reject(error);
              } else {
                used.prepared = true;
                resolve(versions!);
              }
            }),
          );
        }),
      (error: unknown) => {
        drop(used, error);
        throw error;
      },
    );
  }

  /**
   * Sends the queued query. Each step from "settled" to "the queued one is sent or failed" is
   * synchronous: no caller can slip in between and start a second query in flight.
   */
  function sendQueued(): void {
    const riders = queued!;
    queued = undefined;
    inFlight = true;
    read().then(
      (versions) => {
        inFlight = false;
        if (queued) sendQueued();
        riders.resolve(versions);
      },
      // The database did not answer the query in flight: the callers waiting behind it get that
      // failure now rather than a second query's, so no caller waits longer than one query's
      // timeout (the outage bound, docs/POSTGRES.md), however its arrival fell.
      (error: unknown) => {
        inFlight = false;
        const behind = queued;
        queued = undefined;
        riders.reject(error);
        behind?.reject(error);
      },
    );
  }

  return {
    versions() {
      if (!queued) {
        let resolve!: Waiting['resolve'];
        let reject!: Waiting['reject'];
        const promise = new Promise<ReadonlyMap<string, number>>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        queued = { promise, resolve, reject };
        // Nothing in flight: sent once the requests that came in with this one have asked too. A
        // queued query with none in flight always has this callback pending.
        if (!inFlight) setImmediate(() => !inFlight && queued && sendQueued());
      }
      return queued.promise;
    },
    async close() {
      const closing = connection;
      connection = undefined;
      // At shutdown, maybe on a network gone silent: the goodbye is bounded (./client.ts).
      if (closing) await endBounded(closing.client);
    },
  };
}
