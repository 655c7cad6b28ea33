// No credential in plain text at rest or in the logs: a server process at LOG_LEVEL=debug is
// given the admin token, creates validator keys, and every key is used (accepted, refused,
// revoked). Then the database file, its WAL and shared memory, and everything the process wrote
// to stdout and stderr are searched for the admin token, each key and each key's secret part.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { serverDatabase } from '../support/engine.js';
import { COMPETITION, setupCompetition } from './fixture.js';
import { validRun } from './hostileKit.js';
import { http } from '../support/http.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { removeTempDirs, tempDir } from '../support/tempDir.js';

afterAll(async () => {
  await stopAllServers();
  removeTempDirs();
});

it('keeps the admin token and validator keys out of the database file and the logs', async () => {
  const tmp = tempDir('keys');
  const dbPath = join(tmp.dir, 'scoring.db');
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const server = await startServer({ dbPath, adminToken, logLevel: 'debug' });
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    http(server.baseUrl, method, path, { token, body });
  await setupCompetition((m, p, body) => call(m, p, adminToken, body));
  const runs = `/v1/competitions/${COMPETITION}/runs`;

  const keys: string[] = [];
  const ids: string[] = [];
  for (const name of ['alpha', 'beta', 'gamma']) {
    const res = await call('POST', '/v1/validators', adminToken, { name });
    expect(res.status).toBe(201);
    expect(res.body.apiKey).toMatch(/^swv_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    keys.push(res.body.apiKey);
    ids.push(res.body.id);
  }
  for (const [i, key] of keys.entries()) {
    expect((await call('POST', runs, key, { runs: [validRun(`k-${i}`), validRun(`k-${i}-2`)] })).status).toBe(200);
    expect((await call('DELETE', `${runs}/k-${i}-2`, key)).status).toBe(200);
    expect((await call('GET', `/v1/competitions/${COMPETITION}/leaderboard`, key)).status).toBe(200);
    expect((await call('PUT', `/v1/competitions/${COMPETITION}`, key, { name: 'not allowed' })).status).toBe(403);
    expect((await call('POST', runs, key, { runs: [{ runId: 'bad' }] })).status).toBe(400);
  }
  expect((await call('DELETE', `/v1/validators/${ids[2]}`, adminToken)).status).toBe(200);
  expect((await call('POST', runs, keys[2], { runs: [validRun('after-revoke')] })).status).toBe(401);
  // Near misses are credentials too: a mistyped key, a key with the wrong id, a wrong scheme.
  const nearMisses = [
    `${keys[0]!.slice(0, -1)}x`,
    `swv_${'f'.repeat(32)}_${keys[1]!.split('_').at(-1)}`,
    `${adminToken}0`,
  ];
  for (const token of nearMisses)
    expect((await call('POST', runs, token, { runs: [validRun('never')] })).status).toBe(401);
  const basic = await fetch(`${server.baseUrl}${runs}`, {
    method: 'POST',
    headers: { authorization: `Basic ${adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(basic.status).toBe(401);
  expect((await call('GET', '/v1/validators', adminToken)).body.validators.map((v: { id: string }) => v.id)).toEqual(
    expect.arrayContaining(ids),
  );

  const secrets = [adminToken, ...keys, ...keys.map((k) => k.split('_').slice(2).join('_')), ...nearMisses];
  const stored = () => serverDatabase(dbPath).content();
  const leaks = (where: string, bytes: Buffer) =>
    secrets.filter((s) => bytes.includes(Buffer.from(s, 'utf8'))).map((s) => `${where} holds ${s.slice(0, 12)}...`);

  const found: string[] = [];
  found.push(...leaks('the database (running)', await stored()));
  await server.stop('SIGTERM');
  found.push(...leaks('the database (after shutdown)', await stored()));
  const logs = server.output();
  found.push(...leaks('the logs', Buffer.from(logs, 'utf8')));
  expect(found).toEqual([]);

  // The search looked at real material: the logs cover the requests and the file holds the validators.
  expect(logs.match(/"msg":"request completed"/g)?.length ?? 0).toBeGreaterThanOrEqual(20);
  expect((await stored()).includes(Buffer.from(ids[0]!, 'utf8'))).toBe(true);
  console.log(
    `[keys] searched the database while running and after shutdown, and ${logs.length} bytes of debug logs for ${secrets.length} secrets: none found`,
  );
  tmp.remove();
});
