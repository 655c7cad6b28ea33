// The services over a real store and no HTTP (test/services/store/): in-memory SQLite through the
// migrations, or, when the test project sets SCORING_TEST_ENGINE=postgres (vitest.config.ts), a
// PostgreSQL database copied from the run's migrated template.
import { openPostgresStore } from '../../src/db/pg/open.js';
import { createSqliteStore } from '../../src/db/sqlite/store.js';
import type { Store } from '../../src/db/contract.js';
import { RunInputSchema } from '../../src/schemas/runs.js';
import { TaskInputSchema } from '../../src/schemas/tasks.js';
import { CompetitionInputSchema } from '../../src/schemas/competitions.js';
import { createServices, type Services } from '../../src/services/index.js';
import type { Principal } from '../../src/services/principal.js';
import { postgresDatabaseFor, recycleDatabase, TEST_ENGINE } from './engine.js';
import { swebenchRun } from './app.js';
import { memoryDatabase } from './memoryDatabase.js';

export const ADMIN: Principal = { kind: 'admin' };

export interface ServiceKit {
  store: Store;
  services: Services;
  /** Creates competition `id` with task `a` and the runs given (swebenchRun's arguments). */
  seed(id: string, runs: Parameters<typeof swebenchRun>[]): Promise<void>;
  /** Ingests runs into a competition as the admin. */
  ingest(id: string, runs: Parameters<typeof swebenchRun>[]): Promise<void>;
  close(): Promise<void>;
}

export async function serviceKit(): Promise<ServiceKit> {
  let store: Store;
  let drop = () => Promise.resolve();
  if (TEST_ENGINE === 'postgres') {
    const database = await postgresDatabaseFor();
    store = await openPostgresStore(database.url, { max: 4 });
    drop = () => recycleDatabase(database);
  } else store = createSqliteStore(memoryDatabase());
  const services = createServices(store);
  const ingest = async (id: string, runs: Parameters<typeof swebenchRun>[]) => {
    await services.runs.ingest(
      id,
      runs.map((r) => RunInputSchema.parse(swebenchRun(...r))),
      ADMIN,
    );
  };
  return {
    store,
    services,
    ingest,
    async seed(id, runs) {
      await services.competitions.put(id, CompetitionInputSchema.parse({ name: id }), ADMIN);
      await services.tasks.upsert(id, [TaskInputSchema.parse({ id: 'a', type: 'swebench_verified' })], ADMIN);
      await ingest(id, runs);
    },
    async close() {
      await store.close();
      await drop();
    },
  };
}
