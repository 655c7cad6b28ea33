// The rubrics run ingestion grades with are kept between batches on a SQLite connection
// (src/db/rubricCache.ts): a batch is graded with the rubric stored when it is written, whatever
// was read before. After a change through the API, after a transaction (or a savepoint) that wrote
// another rubric and rolled back, and after a write by another connection. On PostgreSQL, which
// keeps nothing, the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/db/pg/open.js';
import { openDatabase } from '../../../src/db/client.js';
import { createSqliteStore } from '../../../src/db/sqlite/store.js';
import type { Store } from '../../../src/db/contract.js';
import { CompetitionInputSchema } from '../../../src/schemas/competitions.js';
import { RunInputSchema } from '../../../src/schemas/runs.js';
import { TaskInputSchema } from '../../../src/schemas/tasks.js';
import { createServices } from '../../../src/services/index.js';
import { fromTaskInput } from '../../../src/services/tasks.js';
import { ADMIN, serviceKit, type ServiceKit } from '../../support/services.js';
import { postgresDatabaseFor, TEST_ENGINE } from '../../support/engine.js';
import { tempDir } from '../../support/tempDir.js';

const [P1, P2, P3] = ['a', 'b', 'c'].map((d) => d.repeat(32)) as [string, string, string];
/** Task q of a QnA type with a rubric of those criteria, all positive. */
const task = (...ids: string[]) =>
  TaskInputSchema.parse({
    id: 'q',
    type: 'swe_atlas_qna',
    qna: {
      prompt: 'Where is the scheduler?',
      referenceAnswer: 'In sched.go.',
      repositoryUrl: 'grafana/k6',
      repositoryBaseCommit: 'e'.repeat(40),
      language: 'go',
      category: 'Root-cause analysis',
      dockerImage: 'img:1',
      rubric: ids.map((id, i) => ({ id, type: 'positive', title: `1.${i + 1}: criterion`, importance: 'must have' })),
    },
  });
/** The criterion ids of q's rubric as ingestion reads it from `store`. */
const rubricOf = async (store: Store) => (await store.tasks.rubrics('c', ['q'])).get('q')?.criteria.map((c) => c.id);
/** A miner run on q with every vote YES for the criteria given. */
const run = (runId: string, ...ids: string[]) =>
  RunInputSchema.parse({
    runId,
    taskId: 'q',
    kind: 'miner',
    minerHotkey: 'm1',
    rubricVotes: ids.map((criterionId) => ({ criterionId, votes: Array(5).fill({ verdict: 'YES' }) })),
  });
/** The failure a transaction is made to end with. */
class Undo extends Error {}

let kit: ServiceKit;
beforeEach(async () => {
  kit = await serviceKit();
  await kit.services.competitions.put('c', CompetitionInputSchema.parse({ name: 'c' }), ADMIN);
  await kit.services.tasks.upsert('c', [task(P1, P2)], ADMIN);
});
afterEach(async () => kit.close());

describe('a batch is graded with the rubric stored when it is written', () => {
  it('after the rubric changed through the API', async () => {
    // Votes on P1 and P3 do not match P1 and P2: the batch is refused (and q keeps no run).
    await expect(kit.services.runs.ingest('c', [run('r1', P1, P3)], ADMIN)).rejects.toMatchObject({
      kind: 'unprocessable',
    });
    expect(await rubricOf(kit.store)).toEqual([P1, P2]);
    await kit.services.tasks.upsert('c', [task(P1, P3)], ADMIN);
    expect(await rubricOf(kit.store)).toEqual([P1, P3]);
    const result = await kit.services.runs.ingest('c', [run('r1', P1, P3)], ADMIN);
    expect(result.accepted).toBe(1);
  });

  it('after transactions that wrote another rubric, read it and rolled back, one after the other', async () => {
    expect(await rubricOf(kit.store)).toEqual([P1, P2]);
    for (const ids of [[P1, P3], [P2, P3], [P3]]) {
      await expect(
        kit.store.transaction(async (tx) => {
          await tx.tasks.upsertMany('c', [fromTaskInput(task(...ids))]);
          expect(await rubricOf(tx)).toEqual(ids);
          throw new Undo();
        }),
      ).rejects.toBeInstanceOf(Undo);
    }
    // No read between the rollbacks above: each transaction found the one before's rubric gone.
    expect(await rubricOf(kit.store)).toEqual([P1, P2]);
    await expect(kit.services.runs.ingest('c', [run('r1', P3)], ADMIN)).rejects.toMatchObject({
      kind: 'unprocessable',
    });
    expect((await kit.services.runs.ingest('c', [run('r2', P1, P2)], ADMIN)).accepted).toBe(1);
  });

  it('after a savepoint that wrote another rubric rolled back, in the transaction around it', async () => {
    await kit.store.transaction(async (tx) => {
      expect(await rubricOf(tx)).toEqual([P1, P2]);
      await expect(
        tx.transaction(async (inner) => {
          await inner.tasks.upsertMany('c', [fromTaskInput(task(P3))]);
          expect(await rubricOf(inner)).toEqual([P3]);
          throw new Undo();
        }),
      ).rejects.toBeInstanceOf(Undo);
      expect(await rubricOf(tx)).toEqual([P1, P2]);
      await tx.tasks.upsertMany('c', [fromTaskInput(task(P2, P1))]);
      expect(await rubricOf(tx)).toEqual([P2, P1]);
    });
    expect(await rubricOf(kit.store)).toEqual([P2, P1]);
  });
});

it('after another connection wrote another rubric', async () => {
  const dir = tempDir('rubrics');
  let open: () => Promise<Store>;
  if (TEST_ENGINE === 'postgres') {
    const database = await postgresDatabaseFor(`${dir.dir}/db`);
    open = () => openPostgresStore(database.url, { max: 2 });
  } else open = async () => createSqliteStore(openDatabase(`${dir.dir}/scoring.db`));
  const [writer, reader] = [await open(), await open()];
  try {
    const writes = createServices(writer);
    await writes.competitions.put('c', CompetitionInputSchema.parse({ name: 'c' }), ADMIN);
    await writes.tasks.upsert('c', [task(P1, P2)], ADMIN);
    expect(await rubricOf(reader)).toEqual([P1, P2]);
    await writes.tasks.upsert('c', [task(P1, P3)], ADMIN);
    expect(await rubricOf(reader)).toEqual([P1, P3]);
    const result = await createServices(reader).runs.ingest('c', [run('r1', P1, P3)], ADMIN);
    expect(result.accepted).toBe(1);
  } finally {
    await writer.close();
    await reader.close();
    dir.remove();
  }
});
