import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../src/cli/commands/serve.js';
import { loadConfig } from '../src/config.js';
import { DEFAULT_SCORE_SETTINGS } from '../src/services/scoreInWorker.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'swe-config-'));

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const dir = tmp();
    const c = loadConfig({ DATABASE_PATH: join(dir, 'db.sqlite') });
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      readsRequireToken: false,
      heapGrowthPercent: 50,
      validatorSilentAfterMs: 3_600_000,
      memoryBudgetMb: 16,
    });
    expect(loadConfig({ SCORING_MEMORY_BUDGET_MB: '0', DATABASE_PATH: join(dir, 'db.sqlite') }).memoryBudgetMb).toBe(0);
    expect(loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(16) }).databasePath).toBe('./data/swe-scoring.db');
  });

  it('generates the admin token once, beside the database, with mode 0600, and reuses it', () => {
    const dir = tmp();
    const first = loadConfig({ DATABASE_PATH: join(dir, 'sub', 'db.sqlite') });
    expect(first.adminTokenGenerated).toBe(true);
    expect(first.adminTokenFile).toBe(join(dir, 'sub', 'admin-token'));
    expect(statSync(first.adminTokenFile!).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.adminTokenFile!, 'utf8').trim()).toBe(first.adminToken);
    const second = loadConfig({ DATABASE_PATH: join(dir, 'sub', 'db.sqlite') });
    expect(second).toMatchObject({ adminToken: first.adminToken, adminTokenGenerated: false });
  });

  it('takes SCORING_ADMIN_TOKEN from the environment without writing a file', () => {
    const c = loadConfig({ SCORING_ADMIN_TOKEN: 'a-long-enough-admin-token', DATABASE_PATH: join(tmp(), 'db') });
    expect(c).toMatchObject({ adminToken: 'a-long-enough-admin-token', adminTokenFile: null });
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ SCORING_READS_REQUIRE_TOKEN: 'maybe' }, /SCORING_READS_REQUIRE_TOKEN/],
    [{ SCORING_ADMIN_TOKEN: 'short' }, /at least 16/],
    [{ SCORING_HEAP_GROWTH_PERCENT: '-5' }, /SCORING_HEAP_GROWTH_PERCENT must be an integer from 0 to 1000/],
    [{ SCORING_HEAP_GROWTH_PERCENT: '1.5' }, /SCORING_HEAP_GROWTH_PERCENT/],
    [{ SCORING_VALIDATOR_SILENT_AFTER_MS: '1h' }, /SCORING_VALIDATOR_SILENT_AFTER_MS must be an integer from 1000/],
    [{ SCORING_VALIDATOR_SILENT_AFTER_MS: '999' }, /SCORING_VALIDATOR_SILENT_AFTER_MS/],
    [{ SCORING_MEMORY_BUDGET_MB: '64MB' }, /SCORING_MEMORY_BUDGET_MB must be an integer from 0/],
    [{ SCORING_SHUTDOWN_GRACE_MS: '5s' }, /SCORING_SHUTDOWN_GRACE_MS must be an integer from 0 to 3600000/],
    [{ SCORING_SNAPSHOT_INTERVAL: '500ms' }, /SCORING_SNAPSHOT_INTERVAL must be a duration from 1s to 596h/],
    // Past Node's timer limit a setInterval fires every millisecond: 597h is refused, not obeyed so.
    [{ SCORING_SNAPSHOT_INTERVAL: '597h' }, /SCORING_SNAPSHOT_INTERVAL must be a duration from 1s to 596h/],
    [{ SCORING_SNAPSHOT_INTERVAL: '10 minutes' }, /SCORING_SNAPSHOT_INTERVAL/],
    [{ SCORING_BODY_TIMEOUT_MS: '30s' }, /SCORING_BODY_TIMEOUT_MS must be an integer from 100/],
    [{ SCORING_MAX_INFLIGHT_BODY_BYTES: '1000' }, /SCORING_MAX_INFLIGHT_BODY_BYTES must be an integer from 1048576/],
    [{ SCORING_MAX_CONNECTIONS: '0' }, /SCORING_MAX_CONNECTIONS must be an integer from 16/],
    [{ SCORING_RATE_LIMIT_ANONYMOUS: '-1' }, /SCORING_RATE_LIMIT_ANONYMOUS/],
    [{ SCORING_RATE_LIMIT_WINDOW: '10' }, /SCORING_RATE_LIMIT_WINDOW must be a duration/],
    [{ SCORING_TRUST_PROXY: 'my-proxy.example' }, /SCORING_TRUST_PROXY must be false, true, a number of proxy hops/],
    [{ SCORING_INSTANCE_LABEL: 'replica 2' }, /SCORING_INSTANCE_LABEL must be 1 to 20 characters of ASCII letters/],
    [{ SCORING_INSTANCE_LABEL: 'réplica-2' }, /SCORING_INSTANCE_LABEL must be 1 to 20 characters/],
    [{ SCORING_INSTANCE_LABEL: 'r'.repeat(21) }, /SCORING_INSTANCE_LABEL must be 1 to 20 characters/],
  ])('rejects %j', (env, message) => {
    expect(() => loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), ...env })).toThrow(message);
  });

  it('reads SCORING_INSTANCE_LABEL, the name of the PostgreSQL connections, unset by default', () => {
    const label = (v?: string) =>
      loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), ...(v === undefined ? {} : { SCORING_INSTANCE_LABEL: v }) })
        .instanceLabel;
    expect([label(), label(''), label('eu-west.replica_2'), label('r'.repeat(20))]).toEqual([
      null,
      null,
      'eu-west.replica_2',
      'r'.repeat(20),
    ]);
  });

  it('reads SCORING_SNAPSHOT_INTERVAL up to 596h, the longest timer Node keeps', () => {
    const interval = (v: string) =>
      loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), SCORING_SNAPSHOT_INTERVAL: v }).snapshotIntervalMs;
    expect(interval('10m')).toBe(600_000);
    expect(interval('596h')).toBe(596 * 3_600_000);
    expect(596 * 3_600_000).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it('has the limits at the door of docs/SECURITY.md by default, each one settable', () => {
    const env = { SCORING_ADMIN_TOKEN: 'x'.repeat(20) };
    expect(loadConfig(env)).toMatchObject({
      door: {
        bodyTimeoutMs: 30_000,
        maxInflightBodyBytes: 48 * 1024 * 1024,
        maxConnections: 1024,
        maxEventStreams: 512,
        maxEventStreamsPerAddress: 8,
        rateLimits: { windowMs: 60_000, anonymous: 1200, validator: 1200, admin: 0, signatureFailures: 30 },
      },
      trustProxy: false,
    });
    const set = loadConfig({
      ...env,
      SCORING_BODY_TIMEOUT_MS: '5000',
      SCORING_RATE_LIMIT_WINDOW: '10s',
      SCORING_RATE_LIMIT_ADMIN: '100',
      SCORING_RATE_LIMIT_VALIDATOR: '0',
      SCORING_RATE_LIMIT_SIGNATURE_FAILURES: '0',
    });
    expect(set.door).toMatchObject({
      bodyTimeoutMs: 5000,
      rateLimits: { windowMs: 10_000, admin: 100, validator: 0, signatureFailures: 0 },
    });
    const proxy = (v: string) => loadConfig({ ...env, SCORING_TRUST_PROXY: v }).trustProxy;
    expect([proxy('off'), proxy('true'), proxy('2')]).toEqual([false, true, 2]);
    expect(proxy('127.0.0.1, 10.0.0.0/8,loopback')).toEqual(['127.0.0.1', '10.0.0.0/8', 'loopback']);
  });

  it('names every door setting read in src/config.ts in `serve --help` and docs/SECURITY.md', () => {
    const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
    const security = readFileSync(new URL('../docs/SECURITY.md', import.meta.url), 'utf8');
    const names = [...new Set(source.match(/SCORING_(?:BODY|MAX|RATE_LIMIT|TRUST)_[A-Z_]+/g))];
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) {
      expect(serveCommand.help, name).toContain(name);
      expect(security, name).toContain(`\`${name}\``);
    }
  });

  it('names every setting src/config.ts reads in `serve --help`', () => {
    const source = ['../src/config.ts', '../src/doorLimits.ts']
      .map((f) => readFileSync(new URL(f, import.meta.url), 'utf8'))
      .join('\n');
    const names = new Set([
      ...[...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
      ...[...source.matchAll(/'((?:SCORING|DATABASE)_[A-Z0-9_]*[A-Z0-9])'/g)].map((m) => m[1]!),
    ]);
    expect(names).toContain('DATABASE_URL');
    expect(names).toContain('SCORING_SCORE_MAX_MINERS');
    expect(names.size).toBeGreaterThanOrEqual(35);
    const missing = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(serveCommand.help));
    expect(missing).toEqual([]);
  });

  it('reads SCORING_READS_REQUIRE_TOKEN as a boolean', () => {
    expect(
      loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), SCORING_READS_REQUIRE_TOKEN: 'true' }).readsRequireToken,
    ).toBe(true);
  });

  it('reads POST /v1/score limits from SCORING_SCORE_*, each refused out of range', () => {
    const token = { SCORING_ADMIN_TOKEN: 'x'.repeat(20) };
    expect(loadConfig(token).scoring).toEqual(DEFAULT_SCORE_SETTINGS);
    expect(
      loadConfig({ ...token, SCORING_SCORE_MAX_MINERS: '10', SCORING_SCORE_TIMEOUT_MS: '5000' }).scoring,
    ).toMatchObject({ miners: 10, timeoutMs: 5000, tasks: DEFAULT_SCORE_SETTINGS.tasks });
    expect(() => loadConfig({ ...token, SCORING_SCORE_MEMORY_MB: '8' })).toThrow(
      /SCORING_SCORE_MEMORY_MB must be an integer from 16/,
    );
    expect(() => loadConfig({ ...token, SCORING_SCORE_CONCURRENCY: '0' })).toThrow(/SCORING_SCORE_CONCURRENCY/);
  });
});
