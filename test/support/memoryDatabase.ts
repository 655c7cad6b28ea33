// A fresh in-memory SQLite database through the real migrations, for the test apps and service
// kits: the migrations run once per worker, into a database whose image every later one copies
// (as the PostgreSQL projects copy a migrated template, test/support/pgGlobalSetup.ts).
import { openDatabase, openDatabaseImage, type Db } from '../../src/db/client.js';

let image: Buffer | undefined;

export function memoryDatabase(): Db {
  if (!image) {
    const first = openDatabase(':memory:');
    image = first.$client.serialize();
    return first;
  }
  return openDatabaseImage(image);
}
