// The validators repository on both engines: create, list, keys, public keys, revocation.
// Both engines through their real migrations (test/support/enginePair.ts).
import { describe, expect, it } from 'vitest';
import { testPostgres } from '../../support/postgres.js';
import { both, enginePairs, norm } from '../../support/enginePair.js';

const server = await testPostgres('test/db/pgStore/validators.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));

describe.runIf(server.available)('PostgreSQL store: validators, the same answers as SQLite', () => {
  const freshPair = enginePairs('pg_store_validators');

  it('validators: create, list, keys, public keys, revocation', async () => {
    const p = await freshPair();
    const create = async (...args: unknown[]) => {
      const a = p.sq.validators.create(...(args as [string]));
      const b = await p.pg.validators.create(...(args as [string]));
      p.ids.set(b.validator.id, a.validator.id);
      expect(norm(b, p.ids)).toStrictEqual(norm(a, new Map()));
      // Distinct creation times, so the list order does not fall to the random ids.
      await new Promise((r) => setTimeout(r, 3));
      return { a, b };
    };
    const k1 = await create('bearer one');
    const k2 = await create('signer', { hotkey: '5Hot', publicKey: 'ab'.repeat(32) });
    await create('bearer two');
    await both(p, 'validators.list');
    await both(p, 'validators.byPublicKey', 'ab'.repeat(32));
    await both(p, 'validators.byPublicKey', 'cd'.repeat(32));
    expect(norm(await p.pg.validators.authenticate(k1.b.apiKey!), p.ids)).toStrictEqual(
      norm(p.sq.validators.authenticate(k1.a.apiKey!), new Map()),
    );
    expect(await p.pg.validators.authenticate(k1.a.apiKey!)).toBeNull();
    expect(await p.pg.validators.authenticate('swv_nope')).toBeNull();
    expect(await p.pg.validators.revoke(k1.b.validator.id)).toBe(p.sq.validators.revoke(k1.a.validator.id));
    expect(await p.pg.validators.revoke('missing')).toBe(p.sq.validators.revoke('missing'));
    expect(await p.pg.validators.authenticate(k1.b.apiKey!)).toBeNull();
    await both(p, 'validators.list');
    expect(norm(await p.pg.validators.get(k2.b.validator.id), p.ids)).toStrictEqual(
      norm(p.sq.validators.get(k2.a.validator.id), new Map()),
    );
  });
});
