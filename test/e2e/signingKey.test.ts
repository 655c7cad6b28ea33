// The snapshot-signing key lives beside the database, not in it: a database restored without its
// key would have its next snapshots signed by a new key, unlike the chain before them. The server
// says so as it starts, naming the competitions, and is silent when the key is the one that signed.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SERVER_ADMIN_TOKEN, startServer, type ServerProcess } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('signing-key');
const dbPath = `${tmp.dir}/db.sqlite`;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  tmp.remove();
});

const admin = { authorization: `Bearer ${SERVER_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const WARNING = 'signed with another key';

it('warns at start when the latest snapshot was signed with another key than the one beside the database', async () => {
  server = await startServer({ dbPath });
  const put = await fetch(`${server.baseUrl}/v1/competitions/kept`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({ name: 'Kept' }),
  });
  expect(put.status).toBe(201);
  const taken = await fetch(`${server.baseUrl}/v1/competitions/kept/snapshots`, {
    method: 'POST',
    headers: admin,
    body: '{}',
  });
  expect(taken.status).toBe(201);
  await server.stop();

  // The same key: nothing to say.
  server = await startServer({ dbPath });
  expect(server.output()).not.toContain(WARNING);
  await server.stop();

  // The database without its key (restored to a new folder): a new key is generated, and said to differ.
  rmSync(join(dirname(dbPath), 'signing-key.pem'));
  server = await startServer({ dbPath });
  await new Promise((r) => setTimeout(r, 200));
  const warning = server
    .output()
    .split('\n')
    .find((line) => line.includes(WARNING));
  expect(warning).toBeDefined();
  expect(JSON.parse(warning!)).toMatchObject({ level: 40, competitions: ['kept'] });
});
