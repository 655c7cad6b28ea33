// A database file holding the bench's competition at one size, ingested once through a dist
// server and kept with its validator key beside it (`<db>.key`); the probes that start a server
// on it (bench/coldLoop.ts, bench/recountStall.ts) work on copies.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Competition } from './generate.js';
import { runBatches } from './generate.js';
import { launch } from './launch.js';
import { ingest, setup } from './phases.js';

/** `db` with `c` ingested (done now unless a call before did); answers the validator key. */
export async function referenceDatabase(
  db: string,
  c: Competition,
  adminToken: string,
  log: (m: string) => void,
  output?: string,
): Promise<string> {
  const keyFile = `${db}.key`;
  if (existsSync(db) && existsSync(keyFile)) return readFileSync(keyFile, 'utf8');
  log(`ingesting into ${db}...`);
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const server = await launch({ dbPath: db, adminToken, build: 'dist' });
  try {
    const key = await setup(server.baseUrl, adminToken, c);
    const { bodies, counts } = runBatches(c, 1000);
    const s = await ingest(server.baseUrl, key, bodies, counts, 4);
    log(`ingested in ${s.toFixed(1)} s`);
    writeFileSync(keyFile, key);
    return key;
  } finally {
    if (output) writeFileSync(output, server.output());
    await server.stop();
  }
}
