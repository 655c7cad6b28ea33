import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
    });
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
    [{ SCORING_SHUTDOWN_GRACE_MS: '5s' }, /SCORING_SHUTDOWN_GRACE_MS must be an integer from 0 to 3600000/],
    [{ SCORING_SNAPSHOT_INTERVAL: '500ms' }, /SCORING_SNAPSHOT_INTERVAL must be a duration from 1s to 596h/],
    // Past Node's timer limit a setInterval fires every millisecond: 597h is refused, not obeyed so.
    [{ SCORING_SNAPSHOT_INTERVAL: '597h' }, /SCORING_SNAPSHOT_INTERVAL must be a duration from 1s to 596h/],
    [{ SCORING_SNAPSHOT_INTERVAL: '10 minutes' }, /SCORING_SNAPSHOT_INTERVAL/],
  ])('rejects %j', (env, message) => {
    expect(() => loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), ...env })).toThrow(message);
  });

  it('reads SCORING_SNAPSHOT_INTERVAL up to 596h, the longest timer Node keeps', () => {
    const interval = (v: string) =>
      loadConfig({ SCORING_ADMIN_TOKEN: 'x'.repeat(20), SCORING_SNAPSHOT_INTERVAL: v }).snapshotIntervalMs;
    expect(interval('10m')).toBe(600_000);
    expect(interval('596h')).toBe(596 * 3_600_000);
    expect(596 * 3_600_000).toBeLessThanOrEqual(2 ** 31 - 1);
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
