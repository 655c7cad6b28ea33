// Builds the Fastify app. It never listens: src/server.ts does, and tests call `inject`.
// The HTTP layer is plugins (errors, auth, metrics, docs, shutdown, content types) and routes;
// routes call services (src/services), which call repositories (src/db).
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Db } from './db/client.js';
import { createSqliteStore } from './db/sqlite/store.js';
import type { Store } from './db/contract.js';
import { createServices, type Services } from './services/index.js';
import type { SignatureOptions } from './services/signatures.js';
import type { ScoreSettings } from './services/scoreInWorker.js';
import type { Signer } from './services/snapshots.js';
import { LIMITS } from './schemas/common.js';
import { authPlugin } from './plugins/auth.js';
import { compressionPlugin } from './plugins/compression.js';
import { headRoutesPlugin } from './plugins/headRoutes.js';
import { readCachingPlugin } from './plugins/readCaching.js';
import { contentTypesPlugin } from './plugins/contentTypes.js';
import { docsPlugin } from './plugins/docs.js';
import {
  clientErrorHandler,
  errorHandler,
  errorsPlugin,
  expectationHandler,
  notImplemented,
} from './plugins/errors.js';
import { createMetrics, metricsPlugin } from './plugins/metrics.js';
import { RequestLog } from './plugins/requestLog.js';
import { shutdownPlugin } from './plugins/shutdown.js';
import { cachingValidatorCompiler } from './plugins/validation.js';
import { strictQueryPlugin } from './plugins/strictQuery.js';
import { routes } from './routes/index.js';
import { fastReadsPlugin } from './http/fastReads.js';
import { viewBodies, type ViewBodies } from './http/viewBodies.js';
import { writeGatePlugin } from './plugins/writeGate.js';
import { bodyGuardPlugin } from './plugins/bodyGuard.js';
import { connectionsPlugin } from './plugins/connections.js';
import { doorMetricsPlugin } from './plugins/doorMetrics.js';
import { serviceMetricsPlugin } from './plugins/serviceMetrics.js';
import { rateLimitsPlugin } from './plugins/rateLimits.js';
import { signatureFailureBudget } from './plugins/signatureFailures.js';
import { securityHeadersPlugin } from './plugins/securityHeaders.js';
import { StreamSlots } from './routes/streamSlots.js';
import { DOOR_DEFAULTS, type DoorLimits, type RateLimits } from './doorLimits.js';
import type { TrustProxy } from './config.js';

export interface AppOptions {
  /** The storage: SQLite (the default) or PostgreSQL, as src/db/open.ts chooses it. */
  store?: Store;
  /** A SQLite database to store in, when no `store` is given. */
  db?: Db;
  adminToken: string;
  readsRequireToken?: boolean;
  /** SCORING_SERVER_HOTKEY and SCORING_SIGNATURE_WINDOW_MS (signed requests). */
  signatures?: SignatureOptions;
  /** The snapshot-signing key (src/signingKey.ts); a throwaway one when not given. */
  signer?: Signer;
  /** SCORING_VALIDATOR_SILENT_AFTER_MS: no heartbeat for this long lists a validator as silent (default 1 h). */
  validatorSilentAfterMs?: number;
  /** SCORING_MEMORY_BUDGET_MB: the competitions' in-memory scoring state (src/services/residency.ts); its default when not given. */
  memoryBudgetMb?: number;
  logger?: FastifyServerOptions['logger'];
  /** POST /v1/score's limits (SCORING_SCORE_*); the defaults of src/services/scoreInWorker.ts when not given. */
  scoring?: ScoreSettings;
  /** The limits at the door (src/doorLimits.ts); DOOR_DEFAULTS for any left out. */
  door?: Partial<Omit<DoorLimits, 'rateLimits'>> & { rateLimits?: Partial<RateLimits> };
  /** SCORING_TRUST_PROXY: whose X-Forwarded-For names the client (per-address limits); none unless given. */
  trustProxy?: TrustProxy;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    /** The bytes of the views services return (src/http/viewBodies.ts). */
    views: ViewBodies;
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const door: DoorLimits = {
    ...DOOR_DEFAULTS,
    ...options.door,
    rateLimits: { ...DOOR_DEFAULTS.rateLimits, ...options.door?.rateLimits },
  };
  const trustProxy = options.trustProxy ?? false;
  const app = Fastify({
    // A hop count trusts that many proxies nearest the server (Fastify takes the number; its types do not say so).
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    logger: options.logger ?? false,
    // One line per request (src/plugins/requestLog.ts).
    logController: new RequestLog(),
    bodyLimit: LIMITS.bodyBytes,
    return503OnClosing: false,
    // Path identifiers may be 128 characters (API.md) and the router's default cap is 100: longer
    // ones must reach the schemas, whose 400 names the parameter.
    routerOptions: { maxParamLength: 1024 },
    // Router errors (a broken percent-escape, a parameter over that cap) leave as problem+json too.
    // The handler sends the reply itself; the router ignores what this returns.
    frameworkErrors: (error, request, reply) => {
      void errorHandler(error, request, reply);
    },
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  // An Expect other than 100-continue: a 417 problem (Node's own answer has no body).
  app.server.on('checkExpectation', expectationHandler);
  // CONNECT: a 501 problem (Node closes the connection unanswered when nothing listens).
  app.server.on('connect', notImplemented);
  app.setValidatorCompiler(cachingValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const metrics = createMetrics();
  const store = options.store ?? createSqliteStore(options.db ?? missingStorage());
  // The bytes of the score reads: counted toward the memory budget, dropped with their scores.
  const views = viewBodies();
  const services = createServices(store, {
    observeScoring: (s) => metrics.scoreComputation.observe(s),
    signatures: options.signatures,
    signer: options.signer,
    scoring: options.scoring,
    validatorSilentAfterMs: options.validatorSilentAfterMs,
    memoryBudgetMb: options.memoryBudgetMb,
    bodyBytes: (competitionId) => views.bytes(competitionId),
  });
  app.decorate('services', services);
  // A write or a release drops a competition's scores (src/services/scores/cache.ts), then the bytes made from them.
  services.scores.onDrop((competitionId, released) => views.drop(competitionId, released));
  app.decorate('views', views);
  app.addHook('onClose', async () => {
    services.changes.close();
    services.imports.close();
    services.scores.close();
    // After the last request: the scores held now stand for the data, and the next start answers
    // from them (src/db/savedScores.ts). Through the write gate, so no import is committing.
    try {
      const saved = await services.writeGate.write(() => services.scores.save());
      if (saved > 0) app.log.info({ competitions: saved }, 'scores saved for the next start');
    } catch (err) {
      app.log.warn({ err }, 'could not save the scores for the next start; it will compute them');
    }
  });

  await app.register(errorsPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(connectionsPlugin, { maxConnections: door.maxConnections, bodyTimeoutMs: door.bodyTimeoutMs });
  await app.register(shutdownPlugin);
  await app.register(bodyGuardPlugin, {
    timeoutMs: door.bodyTimeoutMs,
    maxInflightBytes: door.maxInflightBodyBytes,
  });
  await app.register(contentTypesPlugin);
  await app.register(strictQueryPlugin);
  await app.register(authPlugin, {
    adminToken: options.adminToken,
    readsRequireToken: options.readsRequireToken ?? false,
    validatorByKey: services.validators.authenticate,
    admitSigned: (headers, now) => services.signatures.admit(headers, now),
    signatureFailures:
      door.rateLimits.signatureFailures > 0
        ? signatureFailureBudget(door.rateLimits.signatureFailures, door.rateLimits.windowMs)
        : null,
  });
  await app.register(rateLimitsPlugin, door.rateLimits);
  app.decorate('streamSlots', new StreamSlots(door.maxEventStreams, door.maxEventStreamsPerAddress));
  await app.register(metricsPlugin, { metrics });
  await app.register(doorMetricsPlugin);
  await app.register(writeGatePlugin, { gate: services.writeGate });
  await app.register(serviceMetricsPlugin, { store });
  await app.register(compressionPlugin);
  await app.register(readCachingPlugin);
  // After compression: a HEAD is answered as its GET once the body is compressed (./plugins/headRoutes.ts).
  await app.register(headRoutesPlugin);
  await app.register(docsPlugin);
  await app.register(routes);
  // Warm whole leaderboards and weights ahead of the router, when reads need no token. Behind a
  // trusted proxy with per-address limits, the client's address is Fastify's to find: the router
  // answers every read.
  if (!options.readsRequireToken && !(trustProxy !== false && app.anonymousRateLimit))
    await app.register(fastReadsPlugin, {
      kept: (read, competitionId) => services.scores.kept(read, competitionId),
      bodyNow: (view) => views.bodyNow(view),
      metrics,
      admit: app.anonymousRateLimit,
      catchUp: store.capabilities.freshness
        ? (competitionId) => store.capabilities.freshness!.sync(competitionId)
        : null,
    });
  await app.register(import('./plugins/dashboard.js'));
  await app.ready();
  // Computes nothing before the server listens and reads one saved row at most: the newest
  // competition's, restored with its bodies and their compressed forms made; every other
  // competition's are restored on its first read, or by the pass this starts, which then makes
  // every one's bodies.
  const warming = performance.now();
  await services.scores.warm(views.body, (view) => views.ahead(view));
  void services.scores
    .warmed()
    .then(({ computed, restored }) =>
      app.log.info(
        { computed, restored, ms: Math.round(performance.now() - warming) },
        'scores computed, or restored from the last shutdown',
      ),
    );
  return app;
}

function missingStorage(): never {
  throw new Error('buildApp needs a store or a SQLite database');
}
