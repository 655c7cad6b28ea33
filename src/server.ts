// Starts the server: configuration from the environment, migrations, listen, graceful shutdown.
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { ConfigError } from './configValues.js';
import { describeStorage, openStore, sqliteFiles, type StoreLogger } from './db/open.js';
import { holdTickObjectMap, limitHeapGrowth, missingStartSettings, stopPretenuring } from './heap.js';
import { loadServerKey } from './serverKey.js';
import { tightenFiles } from './privateFiles.js';
import { loadSigningKey } from './signingKey.js';
import { recordStartKey } from './services/signingKeys.js';
import { sweepAbandonedSpools } from './services/spool.js';

async function main(): Promise<void> {
  const config = loadConfig();
  limitHeapGrowth(config.heapGrowthPercent);
  stopPretenuring();
  await holdTickObjectMap();
  const where = `${describeStorage(config)} (${config.databaseUrl ? 'DATABASE_URL' : 'DATABASE_PATH'})`;
  // Before the database opens: SQLite gives a -wal or -shm it creates the mode of the database file.
  const tightened = await startStep('cannot make the data files private (mode 0600)', () =>
    tightenFiles(privateFiles(config)),
  );
  // The store opens before the app and its log: what it has to say meanwhile (a pooled PostgreSQL
  // connection or the notifications' connection lost) goes to stderr, then to the app's log.
  let log: FastifyBaseLogger | undefined = undefined;
  const storeLog: StoreLogger = {
    warn: (obj, msg) => (log ? log.warn(obj, msg) : console.warn(JSON.stringify({ level: 40, ...obj, msg }))),
    info: (obj, msg) => (log ? log.info(obj, msg) : console.warn(JSON.stringify({ level: 30, ...obj, msg }))),
  };
  const store = await startStep(`cannot open the database at ${where}`, () => openStore(config, storeLog));
  const key = await startStep(
    `cannot use the snapshot-signing key at ${config.signingKeyPath} (SCORING_SIGNING_KEY_PATH)`,
    () => loadSigningKey(config.signingKeyPath),
  );
  // Refused before anything listens when the key is not the one that signed the database's snapshots.
  const history = await startStep(`cannot start with the snapshot-signing key at ${config.signingKeyPath}`, () =>
    recordStartKey(store, key.signer, { acceptNew: config.acceptNewSigningKey, file: config.signingKeyPath }),
  );
  // The address signed requests name: SCORING_SERVER_HOTKEY, else the key pair generated beside the signing key.
  const serverKey =
    config.serverHotkey === null
      ? await startStep(`cannot use the server key at ${config.serverKeyPath} (SCORING_SERVER_KEY_PATH)`, () =>
          loadServerKey(config.serverKeyPath),
        )
      : null;
  const app = await buildApp({
    store,
    adminToken: config.adminToken,
    readsRequireToken: config.readsRequireToken,
    signatures: {
      serverAddress: config.serverHotkey ?? serverKey!.keypair.address,
      windowMs: config.signatureWindowMs,
    },
    signer: key.signer,
    validatorSilentAfterMs: config.validatorSilentAfterMs,
    memoryBudgetMb: config.memoryBudgetMb,
    logger: { level: config.logLevel },
    scoring: config.scoring,
    door: config.door,
    trustProxy: config.trustProxy,
  });
  log = app.log;
  if (tightened.length > 0)
    app.log.warn(
      { files: tightened },
      'these files hold the answer keys or a secret and were readable by others: now mode 0600, the owner only',
    );
  const swept = sweepAbandonedSpools();
  if (swept.length > 0)
    app.log.info(
      { folders: swept },
      'removed the import uploads and backup copies of server processes that no longer run',
    );
  const missing = missingStartSettings();
  if (missing.length > 0)
    app.log.warn(
      { missing },
      'started without the start settings of the Docker image and npm start (src/heap.ts): the process ' +
        'will hold more memory; give them to node (docs/OPERATING.md, "Configuration")',
    );
  if (config.adminTokenFile) {
    // The path only: the token itself never reaches the log.
    const what = config.adminTokenGenerated ? 'generated the admin token into' : 'read the admin token from';
    app.log.info({ file: config.adminTokenFile }, `${what} this file (mode 0600)`);
  }
  app.log.info(
    { file: config.signingKeyPath, fingerprint: history.fingerprint },
    key.generated ? 'generated the snapshot-signing key (mode 0600)' : 'read the snapshot-signing key',
  );
  if (history.outcome === 'changed')
    app.log.warn(
      { file: config.signingKeyPath, fingerprint: history.fingerprint, previous: history.previous },
      'signing the next snapshots with a new key (SCORING_ACCEPT_NEW_SIGNING_KEY): recorded in the audit log; ' +
        'GET /v1/identity lists both keys, each with the snapshots it signed',
    );
  app.log.info(
    serverKey
      ? { hotkey: app.services.signatures.serverAddress, file: config.serverKeyPath }
      : { hotkey: app.services.signatures.serverAddress },
    serverKey === null
      ? 'signed requests name SCORING_SERVER_HOTKEY in Epistula-Signed-For'
      : serverKey.generated
        ? 'generated the server key (mode 0600): signed requests name its address in Epistula-Signed-For'
        : 'read the server key: signed requests name its address in Epistula-Signed-For',
  );
  // Periodic snapshots of the competitions that changed since their last one: a write, so through
  // the write gate (it waits while an import commits); one at a time.
  let taking = false;
  const schedule =
    config.snapshotIntervalMs === null
      ? null
      : setInterval(() => {
          if (taking) return;
          taking = true;
          let failures = 0;
          const failed = (competitionId: string | undefined, err: unknown) => {
            failures++;
            app.metrics.snapshotFailures.inc();
            app.log.error({ err, competitionId }, 'periodic snapshot failed');
          };
          app.services.writeGate
            .write(() => app.services.snapshots.takeChanged(failed))
            .then(
              (taken) => {
                app.metrics.snapshotsTaken.inc(taken);
                if (failures === 0) app.metrics.snapshotPassSucceeded.set(Date.now() / 1000);
                if (taken > 0) app.log.info({ taken }, 'periodic snapshots taken');
              },
              (err: unknown) => failed(undefined, err),
            )
            .finally(() => (taking = false));
        }, config.snapshotIntervalMs);
  schedule?.unref();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    if (schedule) clearInterval(schedule);
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    // A reply whose headers went out (keep-alive) just before close() leaves a socket that turns
    // idle after server.close() reaped the idle ones; reap again until the server is closed.
    const reap = setInterval(() => app.server.closeIdleConnections(), 250);
    // A client that stalls (an upload that stops sending, an export read slowly) must not hold the
    // exit past the grace period: its connection is closed, and an unanswered write is the
    // client's to retry (every write is idempotent); what was acknowledged is stored.
    const deadline = setTimeout(() => {
      app.log.warn({ graceMs: config.shutdownGraceMs }, 'shutdown: closing the connections of requests still open');
      app.server.closeAllConnections();
    }, config.shutdownGraceMs);
    try {
      await app.close();
    } finally {
      clearTimeout(deadline);
      clearInterval(reap);
      await store.close();
      app.log.info('database closed');
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await startStep(`cannot listen on ${config.host}:${config.port} (HOST, PORT)`, () =>
    app.listen({ port: config.port, host: config.host }),
  );
  app.log.info({ database: describeStorage(config) }, 'ready');
}

/**
 * The files only this server's user may read: the SQLite database with its WAL and lock, the admin
 * token and the key files. A new key or secret file beside the database belongs in this list.
 */
function privateFiles(config: Config): string[] {
  const files = config.databaseUrl || config.databasePath === ':memory:' ? [] : sqliteFiles(config.databasePath);
  if (config.adminTokenFile) files.push(config.adminTokenFile);
  files.push(config.signingKeyPath, config.serverKeyPath);
  return files;
}

/** A start step whose failure is the setting's, said as such (ConfigError: one line, no stack). */
async function startStep<T>(what: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw new ConfigError(`${what}: ${(err as Error).message}`);
  }
}

main().catch((err: unknown) => {
  // A setting the server cannot start with is said in one line; anything else is a bug, with its stack.
  if (err instanceof ConfigError) console.error(`swe-scoring: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
