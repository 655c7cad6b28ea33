// Import sessions: a task file of any size reaches a running server in chunks. Chunks are spooled
// to a temporary file in order; the commit parses it (in the import worker) and stores every task
// in one transaction, or nothing (src/services/importTasks.ts). Cancelling deletes the file; a
// session left idle expires.
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spoolDir, spoolError, writeAll } from './spool.js';
import type { Store } from '../db/contract.js';
import type { Principal } from './principal.js';
import { badRequest, conflict, noCompetitionToWrite, notFound } from '../errors.js';
import type { ImportCounts, ImportFormat, ImportOptions } from './importJob.js';
import { importQnaFile, type UploadPieces } from './importTasks.js';
import type { WriteGate } from './writeGate.js';

export const IMPORT_SESSIONS = {
  /** A session with no request for this long is deleted. */
  idleMs: 15 * 60_000,
  /** Open sessions at once, over every competition. */
  maxOpen: 4,
  /** Largest file a session takes. */
  maxBytes: 16 * 1024 ** 3,
};

interface Session {
  id: string;
  competitionId: string;
  format: ImportFormat;
  options: ImportOptions;
  dir: string;
  file: string;
  chunks: number;
  bytes: number;
  /** Digest of the last chunk, so a resent chunk (its answer lost) is recognized. */
  lastChunk: string | null;
  /** A chunk is being written: the next waits for its answer. */
  receiving: boolean;
  lastActivity: number;
  state: 'open' | 'committing' | 'cancelled';
}

export function importSessionsService(
  store: Store,
  gate: WriteGate,
  settings = IMPORT_SESSIONS,
  now: () => number = Date.now,
) {
  const sessions = new Map<string, Session>();
  const view = (s: Session) => ({
    sessionId: s.id,
    competitionId: s.competitionId,
    format: s.format,
    state: s.state,
    receivedChunks: s.chunks,
    receivedBytes: s.bytes,
    expiresAt: new Date(s.lastActivity + settings.idleMs).toISOString(),
  });
  const drop = (s: Session) => {
    sessions.delete(s.id);
    rmSync(s.dir, { recursive: true, force: true });
  };
  function find(competitionId: string, id: string): Session {
    const s = sessions.get(id);
    if (!s || s.competitionId !== competitionId) {
      // Sessions live in the process that opened them; on PostgreSQL other processes share the data.
      const elsewhere =
        store.engine === 'postgres'
          ? ', or it was opened on another server process (a session is kept by the process that opened it: send every request of a session there)'
          : '';
      throw notFound(
        `no import session ${id} in competition ${competitionId}: it was committed, cancelled or expired after ${settings.idleMs / 60_000} idle minutes${elsewhere}`,
      );
    }
    s.lastActivity = now();
    return s;
  }
  const open = (s: Session, doing: string) => {
    if (s.state !== 'open')
      throw conflict(
        `import session ${s.id} is ${s.state === 'committing' ? 'being committed' : 'cancelled'}; it takes no ${doing}`,
      );
  };
  /** Deletes sessions idle past the limit; the server calls it every minute. */
  function sweep(): void {
    for (const s of sessions.values())
      if (s.state === 'open' && !s.receiving && now() - s.lastActivity > settings.idleMs) drop(s);
  }
  const timer = setInterval(sweep, 60_000);
  timer.unref();

  return {
    /** Sessions open now (idle ones not yet swept included), and the cap (/metrics). */
    count: () => ({ open: sessions.size, max: settings.maxOpen }),
    /** The competition's sessions, oldest first (expired ones removed first); a 404 for no such competition. */
    async list(competitionId: string) {
      if (!(await store.competitions.get(competitionId))) throw notFound(`competition ${competitionId} does not exist`);
      sweep();
      return { sessions: [...sessions.values()].filter((s) => s.competitionId === competitionId).map(view) };
    },
    async open(competitionId: string, format: ImportFormat, options: ImportOptions) {
      if (!(await store.competitions.get(competitionId))) throw noCompetitionToWrite(competitionId);
      sweep();
      if (sessions.size >= settings.maxOpen) {
        const perCompetition = new Map<string, number>();
        for (const o of sessions.values())
          perCompetition.set(o.competitionId, (perCompetition.get(o.competitionId) ?? 0) + 1);
        const where = [...perCompetition].map(([c, n]) => `${c}: ${n}`).join(', ');
        throw conflict(
          `${sessions.size} import sessions are open (at most ${settings.maxOpen}; ${where}); GET …/tasks/imports lists a ` +
            `competition's, DELETE …/imports/{sessionId} cancels one, or an idle one expires after ${settings.idleMs / 60_000} minutes`,
        );
      }
      const dir = spoolDir();
      const s: Session = {
        id: randomUUID(),
        competitionId,
        format,
        options,
        dir,
        file: join(dir, `upload.${format}`),
        chunks: 0,
        bytes: 0,
        lastChunk: null,
        receiving: false,
        lastActivity: now(),
        state: 'open',
      };
      try {
        appendFileSync(s.file, new Uint8Array(0));
      } catch (e) {
        rmSync(dir, { recursive: true, force: true });
        throw spoolError(e);
      }
      sessions.set(s.id, s);
      return view(s);
    },

    get: (competitionId: string, id: string) => view(find(competitionId, id)),

    /**
     * Appends chunk `n` (0, 1, 2, …), written to the session's file as its pieces arrive. Resending
     * the last chunk as it was is a no-op; any other order is a 409. A chunk that fails part way
     * (the client went away, the body ran over its limit) leaves the file as it was.
     */
    async append(competitionId: string, id: string, n: number, pieces: UploadPieces) {
      const s = find(competitionId, id);
      open(s, 'chunks');
      const outOfOrder = () =>
        conflict(
          `chunk ${n} is out of order: import session ${id} expects chunk ${s.chunks} next (${s.bytes} bytes received)`,
        );
      if (n !== s.chunks && n !== s.chunks - 1) throw outOfOrder();
      if (s.receiving)
        throw conflict(`import session ${id} is still receiving a chunk; send the next once it is answered`);
      s.receiving = true;
      // A resent last chunk is only hashed, to tell it from a different one; a new one is written too.
      const fd = n === s.chunks ? openSync(s.file, 'a') : null;
      const hash = createHash('sha256');
      let size = 0;
      try {
        for await (const piece of pieces) {
          size += piece.length;
          if (s.bytes + size > settings.maxBytes)
            throw badRequest(
              `import session ${id} would exceed ${settings.maxBytes} bytes, the largest file a session takes`,
            );
          hash.update(piece);
          if (fd !== null) writeAll(fd, piece);
        }
        // Cancelled or expired while the chunk came in: its file is gone, and nothing is acknowledged.
        open(s, 'chunks');
        if (!sessions.has(id)) throw notFound(`import session ${id} expired while chunk ${n} was being received`);
      } catch (e) {
        if (fd !== null) ftruncateSync(fd, s.bytes);
        throw e;
      } finally {
        if (fd !== null) closeSync(fd);
        s.receiving = false;
        s.lastActivity = now();
      }
      const digest = hash.digest('hex');
      if (fd === null) {
        if (digest === s.lastChunk) return view(s);
        throw conflict(
          `chunk ${n} was received already with other content (sha256 ${s.lastChunk}, this one ${digest}): ` +
            `import session ${id} keeps the first and expects chunk ${s.chunks} next; to send other content, ` +
            'cancel the session and open a new one',
        );
      }
      s.chunks++;
      s.bytes += size;
      s.lastChunk = digest;
      return view(s);
    },

    /** Parses and stores the whole file; nothing is stored if any row is bad or the session is cancelled meanwhile. */
    async commit(competitionId: string, id: string, who: Principal): Promise<ImportCounts & { sessionId: string }> {
      const s = find(competitionId, id);
      open(s, 'commit');
      if (s.receiving) throw conflict(`import session ${id} is still receiving a chunk; commit once it is answered`);
      if (s.bytes === 0) throw badRequest(`import session ${id} has received no bytes; send chunks first`);
      s.state = 'committing';
      try {
        const counts = await importQnaFile(store, competitionId, s.file, s.format, s.options, {
          who,
          gate,
          beforeWrite: () => {
            if (s.state === 'cancelled')
              throw conflict(`import session ${id} was cancelled while it was being parsed; nothing stored`);
          },
        });
        return { sessionId: id, ...counts };
      } finally {
        drop(s);
      }
    },

    /** Cancels a session: its file is deleted; a commit still parsing it stores nothing. */
    cancel(competitionId: string, id: string) {
      const s = find(competitionId, id);
      if (s.state === 'committing') s.state = 'cancelled';
      else drop(s);
      return { ...view(s), state: 'cancelled' as const };
    },

    /** Stops the expiry timer and deletes every session's file (server shutdown). */
    close(): void {
      clearInterval(timer);
      for (const s of sessions.values()) if (s.state === 'open') drop(s);
    },
  };
}
