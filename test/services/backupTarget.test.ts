// liveFileAt: which file of the live database a backup's --out names, by any path: as given, through
// a linked folder or a linked file, as a hard link, or a -wal that does not exist yet.
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { liveFileAt } from '../../src/services/backupTarget.js';
import { tempDir } from '../support/tempDir.js';

const tmp = tempDir('backup-target');
const data = join(tmp.dir, 'data');
const db = join(data, 'live.db');
mkdirSync(data);
writeFileSync(db, '');
writeFileSync(`${db}-shm`, '');
symlinkSync(data, join(tmp.dir, 'folder-link'));
symlinkSync(db, join(tmp.dir, 'file-link.db'));
linkSync(`${db}-shm`, join(tmp.dir, 'hard-link'));
afterAll(() => tmp.remove());

it.each([
  ['the file as given', db, 'the live database itself'],
  ['the file through a relative path', join(data, '..', 'data', 'live.db'), 'the live database itself'],
  ['the file through a linked folder', join(tmp.dir, 'folder-link', 'live.db'), 'the live database itself'],
  ['a link to the file', join(tmp.dir, 'file-link.db'), 'the live database itself'],
  ['a -wal that does not exist yet', `${db}-wal`, "the live database's write-ahead log (-wal)"],
  [
    'a -wal not there yet, through a linked folder',
    join(tmp.dir, 'folder-link', 'live.db-wal'),
    "the live database's write-ahead log (-wal)",
  ],
  ['a hard link to the -shm', join(tmp.dir, 'hard-link'), "the live database's shared memory (-shm)"],
  ['the writer lock', `${db}.lock`, "the live database's writer lock (.lock)"],
])('names %s', (_what, out, what) => {
  expect(liveFileAt(db, out)).toBe(what);
});

it.each([
  ['a file beside the database', join(data, 'backup.db')],
  ['a name that only starts like the database', join(data, 'live.db-wal.bak')],
  ['a file in another folder', join(tmp.dir, 'live.db')],
])('leaves %s alone', (_what, out) => {
  expect(liveFileAt(db, out)).toBeNull();
});
