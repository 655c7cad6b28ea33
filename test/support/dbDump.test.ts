// The dumps the suites compare keep their statements from one dump to the next (./dbDump.ts): a
// dump still reads the content as it is now, and a schema changed since (a table added or dropped,
// a column added) is dumped as it is now, not through the statements kept for the old one.
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { dumpAll, tableRows } from './dbDump.js';

it('each dump reads the content and the schema as they are at that moment', () => {
  const db = new Database(':memory:');
  db.exec("CREATE TABLE a (id INTEGER, name TEXT); INSERT INTO a VALUES (1, 'x')");
  const first = dumpAll(db);
  expect(dumpAll(db)).toBe(first);

  db.prepare('UPDATE a SET name = ? WHERE id = 1').run('y');
  const changed = dumpAll(db);
  expect(changed).not.toBe(first);
  expect(JSON.parse(changed)).toEqual({ a: [{ id: 1, name: 'y' }] });

  db.exec("ALTER TABLE a ADD COLUMN note TEXT DEFAULT 'n'");
  expect(JSON.parse(dumpAll(db))).toEqual({ a: [{ id: 1, name: 'y', note: 'n' }] });
  expect(tableRows(db, 'a', ['note'])).toEqual([{ id: 1, name: 'y' }]);

  db.exec('CREATE TABLE b (v TEXT); INSERT INTO b VALUES (NULL)');
  expect(JSON.parse(dumpAll(db))).toEqual({ a: [{ id: 1, name: 'y', note: 'n' }], b: [{ v: null }] });
  expect(JSON.parse(dumpAll(db, ['a']))).toEqual({ b: [{ v: null }] });

  db.exec('DROP TABLE a');
  expect(JSON.parse(dumpAll(db))).toEqual({ b: [{ v: null }] });
  db.close();
});
