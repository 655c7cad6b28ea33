// SPEC 13 / API.md 1.2: validators report a heartbeat with their version; listings show when each
// was last seen and mark the silent ones; a competition's minValidatorVersion refuses run writes
// from an older (or silent) validator with a 426. A validator not on the allow-list hears that
// first (403), and one whose key is revoked while its batch comes in stores nothing (401).
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { keypairFromSeed, signRequest } from '../../src/client/sign.js';
import { admin, testApp, type TestApp } from '../support/app.js';
import { createValidators, postRuns, setupCompetition, type Validator } from './trustKit.js';

let t: TestApp;
afterEach(async () => t?.close());

const beat = (v: Validator | { headers: Record<string, string> }, payload: Record<string, unknown>) =>
  t.call({ method: 'POST', url: '/v1/validators/heartbeat', headers: v.headers, payload });

async function adminList(): Promise<Map<string, Record<string, unknown>>> {
  const res = await t.call({ method: 'GET', url: '/v1/validators', headers: admin });
  expect(res.status).toBe(200);
  return new Map(res.body.validators.map((v: { id: string }) => [v.id, v]));
}

async function competitionList(): Promise<Map<string, Record<string, unknown>>> {
  const res = await t.call({ method: 'GET', url: '/v1/competitions/c/validators' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map(res.body.validators.map((v: { id: string }) => [v.id, v]));
}

/** Moves a validator's last heartbeat back by `ms`, as if it had gone quiet since. */
async function ageHeartbeat(v: Validator, ms: number) {
  const at = new Date(Date.now() - ms).toISOString();
  await t.query(`UPDATE validators SET last_seen_at = '${at}' WHERE id = '${v.id}'`);
}

const run = (runId: string) => ({ runId, taskId: 'swe-a', kind: 'miner', minerHotkey: 'm1', resolved: true });

describe('heartbeats', () => {
  it('records version and time, shown in both listings; a silent validator is marked, not removed', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A, B] = (await createValidators(t, 2)) as [Validator, Validator];
    await postRuns(t, A.headers, [run('a1')]);
    await postRuns(t, B.headers, [run('b1')]);
    const before = Date.now();
    const digest = 'ab'.repeat(32);
    const res = await beat(A, { version: '1.4.0', codeDigest: digest });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: A.id, version: '1.4.0', codeDigest: digest, silent: false });
    expect(Date.parse(res.body.lastSeen)).toBeGreaterThanOrEqual(before - 1000);

    for (const rows of [await adminList(), await competitionList()]) {
      expect(rows.get(A.id)).toMatchObject({ version: '1.4.0', silent: false, lastSeen: res.body.lastSeen });
      // B never sent one: listed, silent, no version.
      expect(rows.get(B.id)).toMatchObject({ version: null, lastSeen: null, silent: true });
    }

    // An hour and a minute later without a heartbeat, A is silent (default SCORING_VALIDATOR_SILENT_AFTER_MS, 1 h).
    await ageHeartbeat(A, 61 * 60 * 1000);
    for (const rows of [await adminList(), await competitionList()]) {
      expect(rows.get(A.id)).toMatchObject({ version: '1.4.0', silent: true });
    }
    // Fifty-nine minutes: not yet.
    await ageHeartbeat(A, 59 * 60 * 1000);
    expect((await competitionList()).get(A.id)).toMatchObject({ silent: false });
    // A new heartbeat brings it back.
    await ageHeartbeat(A, 5 * 60 * 60 * 1000);
    expect((await beat(A, { version: '1.5.0' })).body).toMatchObject({ silent: false, codeDigest: null });
    expect((await adminList()).get(A.id)).toMatchObject({ version: '1.5.0', silent: false });
  });

  it('takes its silence threshold from SCORING_VALIDATOR_SILENT_AFTER_MS', async () => {
    t = await testApp({ validatorSilentAfterMs: 60_000 });
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    expect((await beat(A, { version: '1.0.0' })).body.silent).toBe(false);
    await ageHeartbeat(A, 2 * 60_000);
    expect((await adminList()).get(A.id)).toMatchObject({ silent: true });
  });

  it('takes a signed heartbeat from a validator that signs', async () => {
    t = await testApp();
    const key = keypairFromSeed('0x' + '42'.repeat(32));
    const created = await t.call({
      method: 'POST',
      url: '/v1/validators',
      headers: admin,
      payload: { name: 'signer', hotkey: key.address },
    });
    expect(created.status).toBe(201);
    const payload = JSON.stringify({ version: '3.1.4' });
    const res = await t.call({
      method: 'POST',
      url: '/v1/validators/heartbeat',
      headers: {
        'content-type': 'application/json',
        ...signRequest({ key, body: payload, signedFor: t.serverHotkey }),
      },
      payload,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, version: '3.1.4', silent: false });
  });

  it('is cheap: no audit entry, and the kept scores stay', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    await postRuns(t, A.headers, [run('a1')]);
    const board = await t.call({ method: 'GET', url: '/v1/competitions/c/leaderboard' });
    const audited = await t.count('audit_log');
    const changes: string[] = [];
    t.store.listeners.add((e) => void changes.push(e.competitionId));
    for (let i = 0; i < 3; i++) expect((await beat(A, { version: `1.0.${i}` })).status).toBe(200);
    expect(await t.count('audit_log')).toBe(audited);
    expect(changes).toEqual([]);
    const again = await t.call({
      method: 'GET',
      url: '/v1/competitions/c/leaderboard',
      headers: { 'if-none-match': String(board.headers.etag) },
    });
    expect(again.status).toBe(304);
  });

  it.each([
    [{ version: 'v1.2.3' }, 'version'],
    [{ version: '1.2' }, 'version'],
    [{ version: 'latest' }, 'version'],
    [{}, 'version'],
    [{ version: '1.2.3', codeDigest: 'xyz' }, 'codeDigest'],
    [{ version: '1.2.3', extra: 1 }, ''],
  ])('refuses %j with a 400 naming the field', async (payload, field) => {
    t = await testApp();
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    const res = await beat(A, payload);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(res.body.errors)).toContain(`body/${field}`);
    expect((await adminList()).get(A.id)).toMatchObject({ version: null, lastSeen: null });
  });

  it('is for validators: 401 without credentials, 403 for the admin', async () => {
    t = await testApp();
    expect((await beat({ headers: {} }, { version: '1.0.0' })).status).toBe(401);
    expect((await beat({ headers: admin }, { version: '1.0.0' })).status).toBe(403);
  });
});

describe('minValidatorVersion', () => {
  const put = (payload: Record<string, unknown>) =>
    t.call({ method: 'PUT', url: '/v1/competitions/c', headers: admin, payload: { name: 'Trust', ...payload } });
  const post = (v: { headers: Record<string, string> }, runId: string) =>
    t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: v.headers, payload: { runs: [run(runId)] } });

  it('refuses run writes from an older or silent validator with a 426 naming the version; admin writes pass', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    await postRuns(t, A.headers, [run('early')]);
    const set = await put({ minValidatorVersion: '2.0.0' });
    expect(set.status).toBe(200);
    expect(set.body.minValidatorVersion).toBe('2.0.0');
    const audit = await t.call({ method: 'GET', url: '/v1/audit?competition=c', headers: admin });
    expect(audit.body.entries.at(-1)).toMatchObject({
      action: 'competition.update',
      summary: { minValidatorVersion: '2.0.0' },
    });

    const runsBefore = await t.count('runs');
    // No heartbeat yet, then an older version, then a pre-release of the required one: all 426.
    for (const version of [null, '1.9.9', '2.0.0-rc.1']) {
      if (version) expect((await beat(A, { version })).status).toBe(200);
      const res = await post(A, `r-${version}`);
      expect(res.status, JSON.stringify(res.body)).toBe(426);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.detail).toContain('2.0.0 or later');
      // One that never sent a heartbeat may be up to date: it is told to announce its version, not to upgrade.
      if (version === null)
        expect(res.body.detail).toBe(
          'competition c takes writes from validators at version 2.0.0 or later, and it has sent no heartbeat ' +
            'naming its version: send POST /v1/validators/heartbeat {"version": …} with yours (upgrading first if older)',
        );
      else expect(res.body.detail).toContain('upgrade, then send POST /v1/validators/heartbeat with the new version');
      expect(res.body.errors).toEqual([{ path: 'validator/version', message: 'must be 2.0.0 or later' }]);
      const del = await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/early', headers: A.headers });
      expect(del.status).toBe(426);
    }
    expect(await t.count('runs')).toBe(runsBefore);

    // The admin is not a validator: its writes pass.
    expect((await post({ headers: admin }, 'by-admin')).status).toBe(200);

    // Upgraded: the same writes are taken.
    expect((await beat(A, { version: '2.0.0' })).status).toBe(200);
    expect((await post(A, 'after')).status).toBe(200);
    expect((await beat(A, { version: '2.1.0' })).status).toBe(200);
    expect((await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/early', headers: A.headers })).status).toBe(
      200,
    );

    // A later requirement catches it again; null lifts it; leaving it out keeps it.
    expect((await put({ minValidatorVersion: '3.0.0' })).status).toBe(200);
    expect((await put({})).body.minValidatorVersion).toBe('3.0.0');
    expect((await post(A, 'again')).status).toBe(426);
    expect((await put({ minValidatorVersion: null })).body.minValidatorVersion).toBeNull();
    expect((await post(A, 'again')).status).toBe(200);
  });

  it('refuses an outdated bearer validator before reading its batch, and a signed one once it is checked', async () => {
    t = await testApp();
    await setupCompetition(t, 'c', { minValidatorVersion: '2.0.0' });
    const [A] = (await createValidators(t, 1)) as [Validator];
    // A body that would be a 400 if it were parsed: the 426 comes first.
    const res = await t.call({
      method: 'POST',
      url: '/v1/competitions/c/runs',
      headers: { ...A.headers, 'content-type': 'application/json' },
      payload: '{"runs": [',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(426);

    const key = keypairFromSeed('0x' + '43'.repeat(32));
    await t.call({
      method: 'POST',
      url: '/v1/validators',
      headers: admin,
      payload: { name: 's', hotkey: key.address },
    });
    const signed = async (url: string, payload: string) =>
      t.call({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/json',
          ...signRequest({ key, body: payload, signedFor: t.serverHotkey }),
        },
        payload,
      });
    const batch = JSON.stringify({ runs: [run('signed-1')] });
    expect((await signed('/v1/competitions/c/runs', batch)).status).toBe(426);
    expect((await signed('/v1/validators/heartbeat', JSON.stringify({ version: '2.0.1' }))).status).toBe(200);
    expect((await signed('/v1/competitions/c/runs', batch)).status).toBe(200);
  });

  it('a validator neither on the allow-list nor at the version hears 403 first, on a POST as on a DELETE', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A, B] = (await createValidators(t, 2)) as [Validator, Validator];
    await postRuns(t, A.headers, [run('mine')]);
    expect((await put({ validators: [B.id], minValidatorVersion: '2.0.0' })).status).toBe(200);
    // Before: the POST said 426 "upgrade, then heartbeat", and after the upgrade came the 403 anyway.
    const posted = await post(A, 'x');
    expect(posted.status, JSON.stringify(posted.body)).toBe(403);
    expect(posted.body.detail).toContain('allow-list');
    const deleted = await t.call({ method: 'DELETE', url: '/v1/competitions/c/runs/mine', headers: A.headers });
    expect(deleted.status).toBe(403);
    // On the list but outdated: the 426, both ways.
    expect((await post(B, 'y')).status).toBe(426);
  });

  it('a key revoked while its batch is coming in stores nothing: a 401 at the write', async () => {
    t = await testApp();
    await setupCompetition(t);
    const [A] = (await createValidators(t, 1)) as [Validator];
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const body = Buffer.from(JSON.stringify({ runs: [run('during-1'), run('during-2')] }));
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/competitions/c/runs',
          headers: { ...A.headers, 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body; the key is revoked; then the rest.
      req.write(body.subarray(0, 20));
      setTimeout(() => {
        void t.call({ method: 'DELETE', url: `/v1/validators/${A.id}`, headers: admin }).then((res) => {
          expect(res.status).toBe(200);
          req.end(body.subarray(20));
        }, reject);
      }, 50);
    });
    const res = await answer;
    expect(res.status, res.body).toBe(401);
    expect(res.body).toContain('revoked');
    expect(await t.count('runs')).toBe(0);
  });

  it.each(['v2.0.0', '2.0', 'two'])('refuses minValidatorVersion %j with a 400 naming it', async (version) => {
    t = await testApp();
    await setupCompetition(t);
    const res = await put({ minValidatorVersion: version });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('body/minValidatorVersion');
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c' })).body.minValidatorVersion).toBeNull();
  });
});
