// The dumps the suites compare keep their statements from one dump to the next (./dbDump.ts): a
// dump still reads the content as it is now, and a schema changed since (a table added or dropped,
// a column added) is dumped as it is now, not through the statements kept for the old one. Rows
// are objects keyed by column in the table's order, and rowsDiff compares them as their JSON.
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { dumpAll, rowsDiff, tableRows } from './dbDump.js';

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

it("reads each row as an object keyed by column, in the table's column order, ordered by every column", () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (b TEXT, a INTEGER, r REAL, x BLOB)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
  insert.run('k', 2, 0.1 + 0.2, Buffer.from([1, 2]));
  insert.run('k', 1, null, null);
  insert.run('j', 9, -1.5, Buffer.from([]));
  const rows = tableRows(db, 't');
  expect(rows.map((r) => Object.keys(r))).toEqual([
    ['b', 'a', 'r', 'x'],
    ['b', 'a', 'r', 'x'],
    ['b', 'a', 'r', 'x'],
  ]);
  expect(rows).toEqual([
    { b: 'j', a: 9, r: -1.5, x: Buffer.from([]) },
    { b: 'k', a: 1, r: null, x: null },
    { b: 'k', a: 2, r: 0.30000000000000004, x: Buffer.from([1, 2]) },
  ]);
  expect(JSON.stringify(tableRows(db, 't', ['x', 'b']))).toBe(
    '[{"a":1,"r":null},{"a":2,"r":0.30000000000000004},{"a":9,"r":-1.5}]',
  );
  db.close();
});

it('rowsDiff: rows are equal when their JSON is, and the first that is not is described', () => {
  const row = (x: Buffer | null) => ({ id: 1, name: 'a', score: 0.5, x });
  expect(rowsDiff([row(Buffer.from([1])), row(null)], [row(Buffer.from([1])), row(null)])).toBeNull();
  expect(rowsDiff([{ v: Number.NaN }], [{ v: null }])).toBeNull(); // the same JSON
  expect(rowsDiff([row(Buffer.from([1]))], [row(Buffer.from([2]))])).toBe(
    'row 0 of 1 (expected 1): got {"id":1,"name":"a","score":0.5,"x":{"type":"Buffer","data":[1]}}, ' +
      'expected {"id":1,"name":"a","score":0.5,"x":{"type":"Buffer","data":[2]}}',
  );
  expect(rowsDiff([row(null), { ...row(null), score: 0.25 }], [row(null), row(null)])).toMatch(
    /^row 1 of 2 \(expected 2\): got .*"score":0\.25.*, expected .*"score":0\.5/,
  );
  expect(rowsDiff([{ a: 1, b: 2 }], [{ b: 2, a: 1 }])).toBe(
    'row 0 of 1 (expected 1): got {"a":1,"b":2}, expected {"b":2,"a":1}',
  );
  expect(rowsDiff([{ a: 1 }], [{ a: 1, b: undefined }])).toBeNull(); // the same JSON
  expect(rowsDiff([row(null)], [])).toBe(
    'row 0 of 1 (expected 0): got {"id":1,"name":"a","score":0.5,"x":null}, expected undefined',
  );
  expect(rowsDiff([], [row(null)])).toBe(
    'row 0 of 0 (expected 1): got undefined, expected {"id":1,"name":"a","score":0.5,"x":null}',
  );
});
