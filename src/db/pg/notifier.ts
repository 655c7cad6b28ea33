// Hears the writes of every server process on one database. Each write transaction runs
// `SELECT pg_notify('swe_scoring_writes', '{"competitionId":"…","version":N}')`; PostgreSQL
// delivers it at commit to every session that LISTENs on the channel.
//
// LISTEN needs one session for good, so this is a dedicated pg.Client outside the pool. It
// reconnects by itself, with capped backoff, after any error or end, and after a heartbeat query
// goes unanswered (a connection whose network went silent never errors by itself, and a LISTEN
// session sends nothing). Notifications sent while it was away are lost: `onReset` after every
// reconnect tells the caller to drop whatever it cached.
import pg from 'pg';
import { z } from 'zod';
import { applicationName } from '../applicationName.js';
import { endBounded, POSTGRES_DEFAULTS, type PgLogger } from './client.js';

export const WRITES_CHANNEL = 'swe_scoring_writes';

export interface WriteNotification {
  competitionId: string;
  version: number;
}

const Payload = z.object({ competitionId: z.string().min(1), version: z.number().int().nonnegative() });

export interface NotifierOptions {
  /** Called for each well-formed notification, in the order PostgreSQL delivers them. */
  onNotify(notification: WriteNotification): void;
  /** Called after each successful reconnect (not the first connect): notifications may have been missed. */
  onReset(): void;
  logger?: PgLogger;
  /** Wait for each connection attempt (default 5 s). */
  connectTimeoutMs?: number;
  /** How often the connection is checked with a query (default 5 s). */
  heartbeatMs?: number;
  /** How long the check may take before the connection counts as lost (default 5 s). */
  heartbeatTimeoutMs?: number;
  /** The first retry after a failure; each next one waits twice as long, up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Shown in pg_stat_activity (default: the notifier's name without a label, ../applicationName.ts). */
  applicationName?: string;
  /** The LISTEN connection, listening, was lost (counted on /metrics). */
  onLost?: () => void;
}

export interface Notifier {
  /** Whether it is listening now. */
  connected(): boolean;
  /** Times it listened again after losing its connection. */
  reconnects(): number;
  /** Resolves once it listens for the first time; rejects if closed before. */
  ready(): Promise<void>;
  /** Stops it for good. */
  close(): Promise<void>;
}

export function startNotifier(url: string, options: NotifierOptions): Notifier {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const minBackoffMs = options.minBackoffMs ?? 100;
  const maxBackoffMs = options.maxBackoffMs ?? 5_000;
  const log = options.logger;

  let client: pg.Client | undefined;
  let listening = false;
  let everListened = false;
  let closed = false;
  let failures = 0;
  let reconnects = 0;
  /** Since when it has not been listening, after it first did (ms, Date.now()). */
  let lostAt: number | null = null;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  let resolveReady!: () => void;
  let rejectReady!: (err: Error) => void;
  const readyPromise = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  readyPromise.catch(() => {}); // nobody has to wait for it

  const call = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      log?.warn({ err }, `PostgreSQL notifier: ${what} threw`);
    }
  };

  function deliver(payload: string | undefined): void {
    let parsed: z.infer<typeof Payload>;
    try {
      parsed = Payload.parse(JSON.parse(payload ?? ''));
    } catch {
      log?.warn({ payload }, `PostgreSQL notifier: ignored a malformed ${WRITES_CHANNEL} payload`);
      return;
    }
    call('onNotify', () => options.onNotify({ competitionId: parsed.competitionId, version: parsed.version }));
  }

  async function connect(): Promise<void> {
    retry = undefined;
    if (closed) return;
    const c = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs,
      query_timeout: options.heartbeatTimeoutMs ?? 5_000,
      application_name: options.applicationName ?? applicationName('listen'),
      keepAlive: true,
    });
    client = c;
    c.on('error', (err) => drop(c, err));
    c.on('end', () => drop(c, new Error('Connection terminated')));
    c.on('notification', (msg) => {
      if (msg.channel === WRITES_CHANNEL) deliver(msg.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${WRITES_CHANNEL}`);
    } catch (err) {
      drop(c, err);
      return;
    }
    if (client !== c) return; // dropped (or closed) while connecting
    listening = true;
    failures = 0;
    heartbeat = setInterval(() => {
      c.query('SELECT 1').catch((err: unknown) => drop(c, err));
    }, heartbeatMs);
    if (everListened) {
      reconnects += 1;
      log?.info?.({ downMs: Date.now() - (lostAt ?? Date.now()), reconnects }, 'PostgreSQL notifier: listening again');
      lostAt = null;
      call('onReset', () => options.onReset());
    } else {
      everListened = true;
      resolveReady();
    }
  }

  /** Forgets `c` (once) and, unless closed, schedules the next attempt. */
  function drop(c: pg.Client, err: unknown): void {
    if (client !== c) return;
    client = undefined;
    if (listening) {
      lostAt = Date.now();
      options.onLost?.();
    }
    listening = false;
    clearInterval(heartbeat);
    abandon(c);
    if (closed) return;
    const delay = Math.min(maxBackoffMs, minBackoffMs * 2 ** failures);
    failures += 1;
    log?.warn({ err, retryInMs: delay }, 'PostgreSQL notifier: connection lost, reconnecting');
    retry = setTimeout(() => void connect(), delay);
  }

  /** Forgets a client for good, late events and all; its socket closes now, not when TCP gives up. */
  function abandon(c: pg.Client): void {
    c.removeAllListeners();
    c.on('error', () => {});
    c.connection.stream.destroy();
  }

  void connect();

  return {
    connected: () => listening,
    reconnects: () => reconnects,
    ready: () => readyPromise,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      listening = false;
      rejectReady(new Error('PostgreSQL notifier closed'));
      const c = client;
      client = undefined;
      if (!c) return;
      c.removeAllListeners('notification');
      // A polite goodbye, but bounded: on a silent network the server's close never comes.
      await endBounded(c);
      abandon(c);
    },
  };
}
