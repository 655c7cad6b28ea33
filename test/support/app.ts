// Builds the real app over a fresh in-memory database with the real migrations.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Db } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/db/sqlite/store.js';
import type { Store } from '../../src/db/store.js';
import type { Json } from './json.js';
import type { SignatureOptions } from '../../src/services/signatures.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  /** The storage the app runs on. */
  store: Store;
  /** inject with JSON parsing of the body. */
  call(opts: InjectOptions): Promise<{ status: number; body: Json; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function testApp(
  options: { readsRequireToken?: boolean; path?: string; signatures?: SignatureOptions } = {},
): Promise<TestApp> {
  const db = openDatabase(options.path ?? ':memory:');
  const store = createSqliteStore(db);
  const app = await buildApp({
    store,
    adminToken: ADMIN_TOKEN,
    readsRequireToken: options.readsRequireToken,
    signatures: options.signatures,
  });
  return {
    app,
    db,
    store,
    async call(opts) {
      const res = await app.inject(opts);
      let body: unknown = res.body;
      try {
        body = res.body.length > 0 ? JSON.parse(res.body) : null;
      } catch {
        // leave non-JSON bodies as text
      }
      return { status: res.statusCode, body, headers: res.headers };
    },
    async close() {
      await app.close();
      db.$client.close();
    },
  };
}

/** Creates a competition and returns a validator key for it. */
export async function seedCompetition(t: TestApp, id = 'comp', body: Record<string, unknown> = { name: 'Test' }) {
  const c = await t.call({ method: 'PUT', url: `/v1/competitions/${id}`, headers: admin, payload: body });
  if (c.status !== 201 && c.status !== 200) throw new Error(`competition: ${c.status} ${JSON.stringify(c.body)}`);
  const v = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'validator' } });
  return { validatorKey: v.body.apiKey as string, validatorId: v.body.id as string };
}
