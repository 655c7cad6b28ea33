// The real server (test/support/serverProcess.ts) on a copy of the seeded demo database, and the JSON
// API read the same way the pages read it, to compare what they show.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { SERVER_ADMIN_TOKEN as ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';
import type { Json } from '../support/json.js';

export interface TestServer extends ServerProcess {
  get<T = Json>(path: string): Promise<T>;
  send(method: 'PUT' | 'POST', path: string, body: unknown): Promise<Json>;
  close(): Promise<void>;
}

/** A server of its own on a fresh copy of the demo database, or on an empty one. */
export async function startTestServer(
  seed: 'demo' | 'empty' = 'demo',
  env: Record<string, string> = {},
): Promise<TestServer> {
  const tmp = tempDir('browser');
  const db = join(tmp.dir, 'db.sqlite');
  if (seed === 'demo') copyFileSync(inject('demoDb'), db);
  const server = await startServer({ dbPath: db, env });
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  return Object.assign(server, {
    async get(path: string) {
      // With the admin token, so a server whose reads need one answers the tests too.
      const res = await fetch(server.baseUrl + path, { headers: { authorization: headers.authorization } });
      if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    async send(method: 'PUT' | 'POST', path: string, body: unknown) {
      const res = await fetch(server.baseUrl + path, { method, headers, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    async close() {
      await server.stop();
      tmp.remove();
    },
  });
}
