// Configuration from the environment; every setting is documented in the README.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  adminToken: string;
  /** Where a generated admin token was stored, when it was generated or read from there. */
  adminTokenFile: string | null;
  logLevel: string;
  readsRequireToken: boolean;
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const databasePath = env.DATABASE_PATH ? env.DATABASE_PATH : './data/swe-scoring.db';
  const port = env.PORT ? Number(env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0..65535, got ${env.PORT}`);
  const admin = env.SCORING_ADMIN_TOKEN ? { token: env.SCORING_ADMIN_TOKEN, file: null } : adminTokenFromFile(databasePath);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databasePath,
    adminToken: admin.token,
    adminTokenFile: admin.file,
    logLevel: env.LOG_LEVEL || 'info',
    readsRequireToken: parseBool(env.SCORING_READS_REQUIRE_TOKEN ?? 'false', 'SCORING_READS_REQUIRE_TOKEN'),
  };
}

function parseBool(value: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off|)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got ${value}`);
}

/** The admin token file beside the database: read it, or create it with mode 0600. */
function adminTokenFromFile(databasePath: string): { token: string; file: string } {
  const dir = databasePath === ':memory:' ? resolve('./data') : dirname(resolve(databasePath));
  const file = join(dir, 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(dir, { recursive: true });
  const token = `swa_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { token, file };
}
