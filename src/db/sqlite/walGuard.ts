// The write-ahead log kept from filling the disk. SQLite copies the log into the database file (a
// checkpoint) only up to the oldest read transaction still open; another process's (a sqlite3 shell
// left in a transaction, a backup tool reading for minutes) holds it, and the log grows with every
// write, 535 MB in 20 s of ingest here. Had it filled the disk, the checkpoint after the reader let go
// would have had no room to copy it into the file: every write refused, across restarts, until the
// operator added disk. So past its bound (WAL_LIMIT_BYTES, also the size SQLite truncates it back to,
// ../client.ts) each write first checkpoints what it can, without waiting for readers, and is refused
// (503 storage-full, retried after a minute) while what is left would not fit on the disk. Once the
// reader lets go, the next write checkpoints the whole log, SQLite starts it again from the top and
// truncates it, and writes go on by themselves.
import type Database from 'better-sqlite3';
import { statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { storageFull } from '../../errors.js';

/** The log's size past which a write checks that a checkpoint still fits, and what SQLite truncates it back to. */
export const WAL_LIMIT_BYTES = 16 * 1024 * 1024;

const MIB = 1024 * 1024;

export interface WalGuard {
  /** The log's size now, bytes (0 when there is none). */
  bytes: () => number;
  /** Before a write: throws a 503 storage-full while the log holds more than the disk could take in. */
  check: () => void;
}

export function walGuard(c: Database.Database, database: string): WalGuard {
  const wal = `${database}-wal`;
  const bytes = () => statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
  return {
    bytes,
    check() {
      const size = bytes();
      if (size <= WAL_LIMIT_BYTES) return;
      const left = uncheckpointed(c) ?? size;
      if (left <= 0) return;
      const disk = statfsSync(dirname(database));
      const free = disk.bavail * disk.bsize;
      if (free > left) return;
      throw storageFull(
        new Error(
          `the write-ahead log ${wal} holds ${Math.ceil(left / MIB)} MiB that a read transaction of another ` +
            `connection keeps out of the database file, and its disk has ${Math.floor(free / MIB)} MiB free: ` +
            'writes wait until that reader ends (a sqlite3 shell or a backup tool holding the file open)',
        ),
      );
    },
  };
}

/**
 * Checkpoints what it can without waiting, and returns the bytes of log still to copy; null when it
 * cannot run now (this connection is reading: a statement stepped across an await), and the log's
 * whole size then stands for them.
 */
function uncheckpointed(c: Database.Database): number | null {
  try {
    const [frames] = c.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    return (frames!.log - frames!.checkpointed) * (c.pragma('page_size', { simple: true }) as number);
  } catch {
    return null;
  }
}
