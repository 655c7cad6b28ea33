// Configuration from the environment; every setting is documented in docs/OPERATING.md.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { DOOR_DEFAULTS, type DoorLimits } from './doorLimits.js';
import { DEFAULT_HEAP_GROWTH_PERCENT } from './heap.js';
import { makePrivateDir } from './privateFiles.js';
import { DEFAULT_SILENT_AFTER_MS } from './services/liveness.js';
import { DEFAULT_MEMORY_BUDGET_MB } from './services/residency.js';
import { MAX_SIGNATURE_WINDOW_MS } from './signatures/epistula.js';
import { DEFAULT_SCORE_SETTINGS, type ScoreSettings } from './services/scoreInWorker.js';
import { decodeSs58 } from './signatures/ss58.js';
import { ConfigError, instanceLabel, parseBool, parseDuration, parseInteger } from './configValues.js';

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  /** DATABASE_URL: PostgreSQL instead of the SQLite file (docs/POSTGRES.md); null for SQLite. */
  databaseUrl: string | null;
  /** DATABASE_POOL_SIZE: PostgreSQL connections this process keeps at most. */
  databasePoolSize: number;
  /** DATABASE_TIMEOUT_MS: on PostgreSQL, the longest wait for a connection (a statement: twice that); else a 503. */
  databaseTimeoutMs: number;
  /** SCORING_INSTANCE_LABEL: names this process's PostgreSQL connections (src/configValues.ts); null: none. */
  instanceLabel: string | null;
  adminToken: string;
  /** The admin token file, when the token came from it rather than the environment. */
  adminTokenFile: string | null;
  /** True when this start generated the token file. */
  adminTokenGenerated: boolean;
  logLevel: string;
  readsRequireToken: boolean;
  /**
   * SCORING_SERVER_HOTKEY: the server's own ss58 address, which signed requests name in
   * Epistula-Signed-For; null: the address of the key pair at `serverKeyPath`.
   */
  serverHotkey: string | null;
  /** The server's sr25519 key pair (a mini-secret in hex), generated there at first start unless SCORING_SERVER_HOTKEY is set. */
  serverKeyPath: string;
  /** Accepted clock distance of a signed request's timestamp, either way. */
  signatureWindowMs: number;
  /** The snapshot-signing key file (Ed25519, PKCS#8 PEM); generated there at first start. */
  signingKeyPath: string;
  /**
   * SCORING_ACCEPT_NEW_SIGNING_KEY (`serve --new-signing-key`): start even though the key is not
   * the one that signed the database's snapshots (src/services/signingKeys.ts).
   */
  acceptNewSigningKey: boolean;
  /** Take a snapshot of every changed competition this often (ms); null: only on request. */
  snapshotIntervalMs: number | null;
  /** SCORING_HEAP_GROWTH_PERCENT: a full garbage collection once the heap outgrows its live data by this much (src/heap.ts); 0: V8's own. */
  heapGrowthPercent: number;
  /** How long a shutdown waits for requests in flight before it closes their connections (ms). */
  shutdownGraceMs: number;
  /** SCORING_SCORE_*: POST /v1/score's limits (src/services/scoreInWorker.ts). */
  scoring: ScoreSettings;
  /** The limits at the door (src/doorLimits.ts, docs/SECURITY.md). */
  door: DoorLimits;
  /**
   * SCORING_TRUST_PROXY: which peers' X-Forwarded-For names the client (docs/SECURITY.md, "Behind a
   * TLS proxy"): false (none), true (any), a hop count, or addresses and CIDR ranges.
   */
  trustProxy: TrustProxy;
  /** SCORING_VALIDATOR_SILENT_AFTER_MS: a validator with no heartbeat for this long is listed as silent. */
  validatorSilentAfterMs: number;
  /**
   * SCORING_MEMORY_BUDGET_MB: what the competitions' in-memory scoring state may hold before the
   * least recently used give theirs back (src/services/residency.ts).
   */
  memoryBudgetMb: number;
}

export type TrustProxy = boolean | number | string[];

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(value: string | undefined): string {
  if (!value) return 'info';
  if (!LOG_LEVELS.includes(value))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${value}`);
  return value;
}

/** Where the server keeps its database unless DATABASE_PATH says otherwise (also `npm run import`). */
export const DEFAULT_DATABASE_PATH = './data/swe-scoring.db';

export function loadConfig(env: Env = process.env): Config {
  const databasePath = env.DATABASE_PATH ? env.DATABASE_PATH : DEFAULT_DATABASE_PATH;
  if (env.SCORING_ADMIN_TOKEN !== undefined && env.SCORING_ADMIN_TOKEN.length < 16) {
    throw new ConfigError('SCORING_ADMIN_TOKEN must be at least 16 characters');
  }
  const port = env.PORT ? Number(env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be an integer 0..65535, got ${env.PORT}`);
  const { signingKeyPath, serverKeyPath } = keyPaths(env, databasePath);
  const admin = env.SCORING_ADMIN_TOKEN
    ? { token: env.SCORING_ADMIN_TOKEN, file: null, generated: false }
    : adminTokenFromFile(databasePath);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databasePath,
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databasePoolSize: parseInteger(env.DATABASE_POOL_SIZE ?? '10', 'DATABASE_POOL_SIZE', 1, 1000),
    databaseTimeoutMs: parseInteger(env.DATABASE_TIMEOUT_MS ?? '5000', 'DATABASE_TIMEOUT_MS', 100, 600_000),
    instanceLabel: instanceLabel(env.SCORING_INSTANCE_LABEL),
    adminToken: admin.token,
    adminTokenFile: admin.file,
    adminTokenGenerated: admin.generated,
    logLevel: logLevel(env.LOG_LEVEL),
    readsRequireToken: parseBool(env.SCORING_READS_REQUIRE_TOKEN ?? 'false', 'SCORING_READS_REQUIRE_TOKEN'),
    serverHotkey: serverHotkey(env.SCORING_SERVER_HOTKEY),
    signatureWindowMs: parseInteger(
      env.SCORING_SIGNATURE_WINDOW_MS ?? '8000',
      'SCORING_SIGNATURE_WINDOW_MS',
      0,
      MAX_SIGNATURE_WINDOW_MS,
    ),
    // Beside the snapshot-signing key: on PostgreSQL the replicas share that folder, and so one address.
    serverKeyPath,
    signingKeyPath,
    acceptNewSigningKey: parseBool(env.SCORING_ACCEPT_NEW_SIGNING_KEY ?? 'false', 'SCORING_ACCEPT_NEW_SIGNING_KEY'),
    snapshotIntervalMs: parseDuration(env.SCORING_SNAPSHOT_INTERVAL, 'SCORING_SNAPSHOT_INTERVAL'),
    heapGrowthPercent: parseInteger(
      env.SCORING_HEAP_GROWTH_PERCENT ?? String(DEFAULT_HEAP_GROWTH_PERCENT),
      'SCORING_HEAP_GROWTH_PERCENT',
      0,
      1000,
    ),
    // Below Docker's and Kubernetes' default 10 s between SIGTERM and SIGKILL.
    shutdownGraceMs: parseInteger(env.SCORING_SHUTDOWN_GRACE_MS ?? '8000', 'SCORING_SHUTDOWN_GRACE_MS', 0, 3_600_000),
    door: doorLimits(env),
    trustProxy: trustProxy(env.SCORING_TRUST_PROXY),
    scoring: scoring(env),
    validatorSilentAfterMs: parseInteger(
      env.SCORING_VALIDATOR_SILENT_AFTER_MS ?? String(DEFAULT_SILENT_AFTER_MS),
      'SCORING_VALIDATOR_SILENT_AFTER_MS',
      1000,
      30 * 24 * 3_600_000,
    ),
    memoryBudgetMb: parseInteger(
      env.SCORING_MEMORY_BUDGET_MB ?? String(DEFAULT_MEMORY_BUDGET_MB),
      'SCORING_MEMORY_BUDGET_MB',
      0,
      1_048_576,
    ),
  };
}

/** POST /v1/score's limits: each SCORING_SCORE_* setting, or its default. */
function scoring(env: Env): ScoreSettings {
  const d = DEFAULT_SCORE_SETTINGS;
  const setting = (name: string, fallback: number, min: number, max: number) =>
    parseInteger(env[name] ?? String(fallback), name, min, max);
  return {
    miners: setting('SCORING_SCORE_MAX_MINERS', d.miners, 1, 10_000_000),
    tasks: setting('SCORING_SCORE_MAX_TASKS', d.tasks, 1, 10_000_000),
    runs: setting('SCORING_SCORE_MAX_RUNS', d.runs, 1, 100_000_000),
    answerBytes: setting('SCORING_SCORE_MAX_ANSWER_BYTES', d.answerBytes, 1024, 512 * 1024 * 1024),
    memoryMb: setting('SCORING_SCORE_MEMORY_MB', d.memoryMb, 16, 65_536),
    timeoutMs: setting('SCORING_SCORE_TIMEOUT_MS', d.timeoutMs, 100, 3_600_000),
    concurrent: setting('SCORING_SCORE_CONCURRENCY', d.concurrent, 1, 64),
  };
}

function doorLimits(env: Env): DoorLimits {
  const d = DOOR_DEFAULTS;
  const int = (name: string, fallback: number, min: number, max: number) =>
    parseInteger(env[name] ?? String(fallback), name, min, max);
  const rate = (name: string, fallback: number) => int(name, fallback, 0, 1_000_000_000);
  return {
    bodyTimeoutMs: int('SCORING_BODY_TIMEOUT_MS', d.bodyTimeoutMs, 100, 3_600_000),
    maxInflightBodyBytes: int('SCORING_MAX_INFLIGHT_BODY_BYTES', d.maxInflightBodyBytes, 1024 * 1024, 2 ** 40),
    maxConnections: int('SCORING_MAX_CONNECTIONS', d.maxConnections, 16, 1_000_000),
    maxEventStreams: int('SCORING_MAX_EVENT_STREAMS', d.maxEventStreams, 0, 1_000_000),
    maxEventStreamsPerAddress: int('SCORING_MAX_EVENT_STREAMS_PER_ADDRESS', d.maxEventStreamsPerAddress, 0, 1_000_000),
    rateLimits: {
      windowMs: parseDuration(env.SCORING_RATE_LIMIT_WINDOW, 'SCORING_RATE_LIMIT_WINDOW') ?? d.rateLimits.windowMs,
      anonymous: rate('SCORING_RATE_LIMIT_ANONYMOUS', d.rateLimits.anonymous),
      validator: rate('SCORING_RATE_LIMIT_VALIDATOR', d.rateLimits.validator),
      admin: rate('SCORING_RATE_LIMIT_ADMIN', d.rateLimits.admin),
      signatureFailures: rate('SCORING_RATE_LIMIT_SIGNATURE_FAILURES', d.rateLimits.signatureFailures),
    },
  };
}

/** An address or CIDR range: IPv4 or IPv6, or one of proxy-addr's names (loopback, linklocal, uniquelocal). */
const PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/;

function trustProxy(value: string | undefined): TrustProxy {
  const v = value?.trim() ?? '';
  if (/^(|0|false|no|off)$/i.test(v)) return false;
  if (/^(true|yes|on)$/i.test(v)) return true;
  if (/^\d+$/.test(v)) return parseInteger(v, 'SCORING_TRUST_PROXY', 1, 100);
  const entries = v.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !PROXY_ENTRY.test(e));
  if (bad !== undefined)
    throw new ConfigError(
      `SCORING_TRUST_PROXY must be false, true, a number of proxy hops, or proxy addresses and CIDR ranges such as ` +
        `127.0.0.1,10.0.0.0/8 (or loopback, linklocal, uniquelocal); got ${JSON.stringify(bad)}`,
    );
  return entries;
}

function databaseUrl(value: string | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL such as postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new ConfigError(
      `DATABASE_URL must be a postgres:// or postgresql:// URL, got ${url.protocol}//…; leave it unset to use the SQLite file (DATABASE_PATH)`,
    );
  return value;
}

/** The folder beside the database where the server keeps its token and key files. */
const dataDir = (databasePath: string) =>
  databasePath === ':memory:' ? resolve('./data') : dirname(resolve(databasePath));

/** The admin token file, beside the database (when SCORING_ADMIN_TOKEN is not set). */
const adminTokenPath = (databasePath: string) => join(dataDir(databasePath), 'admin-token');

/** Where the key files are: SCORING_SIGNING_KEY_PATH and SCORING_SERVER_KEY_PATH, else beside the database. */
function keyPaths(env: Env, databasePath: string) {
  const signingKeyPath = env.SCORING_SIGNING_KEY_PATH || join(dataDir(databasePath), 'signing-key.pem');
  return { signingKeyPath, serverKeyPath: env.SCORING_SERVER_KEY_PATH || join(dirname(signingKeyPath), 'server-key') };
}

/**
 * The server's secrets that no restore of the database can rebuild, as the environment places them
 * for the database at `databasePath`, each with what it is; read without creating any (unlike
 * loadConfig, which makes the admin token file when there is none).
 */
export function secretFiles(env: Env, databasePath: string): { path: string; what: string }[] {
  const { signingKeyPath, serverKeyPath } = keyPaths(env, databasePath);
  return [
    { path: signingKeyPath, what: "the server's snapshot-signing key" },
    { path: serverKeyPath, what: "the server's own key (signed requests)" },
    { path: adminTokenPath(databasePath), what: "the server's admin token file" },
  ];
}

function serverHotkey(value: string | undefined): string | null {
  if (!value) return null;
  const decoded = decodeSs58(value);
  if (!decoded.ok) throw new ConfigError(`SCORING_SERVER_HOTKEY must be an ss58 address: ${decoded.message}`);
  return value;
}

/** The admin token file beside the database: read it, or create it with mode 0600. */
function adminTokenFromFile(databasePath: string): { token: string; file: string; generated: boolean } {
  const file = adminTokenPath(databasePath);
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < 16) throw new ConfigError(`${file} holds no usable admin token (under 16 characters)`);
    return { token, file, generated: false };
  }
  makePrivateDir(dataDir(databasePath));
  const token = `swa_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { token, file, generated: true };
}
