// The client side of an import session (POST …/tasks/imports): uploads a file of any size in
// chunks, then commits it. Cancelling (Ctrl-C) deletes the session on the server: nothing stored.
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { parquetMetadata } from 'hyparquet';
import type { ErrorField } from '../errors.js';
import { CliError } from './command.js';
import type { Progress } from './progress.js';

export interface Counts {
  imported: number;
  updated: number;
  unchanged: number;
}

export interface SessionUpload {
  url: string;
  token: string;
  competitionId: string;
  file: string;
  format: 'jsonl' | 'parquet';
  stage?: string;
  complexity?: string;
  chunkBytes: number;
}

/** Thrown when Ctrl-C stopped the import; `stored` says whether the server had already stored it. */
export class Cancelled extends Error {
  constructor(
    readonly sessionId: string | null,
    readonly stored: Counts | null,
  ) {
    super('cancelled');
  }
}

/** Rows in a Parquet file, from its footer (the last bytes); null when it cannot be read. */
export function parquetRows(file: string): number | null {
  const size = statSync(file).size;
  const tail = Math.min(size, 8 * 1024 * 1024);
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(tail);
    readSync(fd, buf, 0, tail, size - tail);
    return Number(parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + tail)).num_rows);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export async function uploadInSession(
  o: SessionUpload,
  bar: Progress,
  cancel: AbortSignal,
): Promise<Counts & { sessionId: string }> {
  const base = `${o.url.replace(/\/+$/, '')}/v1/competitions/${encodeURIComponent(o.competitionId)}/tasks/imports`;
  const auth = { authorization: `Bearer ${o.token}` };
  async function call<T>(
    method: string,
    url: string,
    body?: BodyInit,
    type = 'application/json',
    signal: AbortSignal | null = cancel,
  ): Promise<T> {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': type },
        body,
        signal,
      });
    } catch (e) {
      if (cancel.aborted) throw e;
      throw new CliError(`cannot reach ${o.url}: ${(e as Error).message}`);
    }
    const json = (await res.json().catch(() => ({}))) as T & { detail?: string; errors?: ErrorField[] };
    if (!res.ok) {
      const errors = json.errors ?? [];
      throw new CliError(
        `${res.status}: ${json.detail ?? res.statusText}`,
        errors.length > 5 ? errors.map((e) => `  ${e.path}: ${e.message}`) : [],
      );
    }
    return json;
  }

  const options = Object.fromEntries(
    Object.entries({ format: o.format, stage: o.stage, complexity: o.complexity }).filter(([, v]) => v !== undefined),
  );
  const session = await call<{ sessionId: string }>('POST', base, JSON.stringify(options));
  const sid = session.sessionId;
  const remove = () => call('DELETE', `${base}/${sid}`, undefined, undefined, null).catch(() => undefined);
  try {
    const knownRows = o.format === 'parquet' ? parquetRows(o.file) : null;
    let sent = 0;
    let rows = 0;
    let n = 0;
    for await (const chunk of createReadStream(o.file, { highWaterMark: o.chunkBytes })) {
      const bytes = chunk as Buffer;
      for (let attempt = 1; ; attempt++) {
        try {
          await call(`PUT`, `${base}/${sid}/chunks/${n}`, new Uint8Array(bytes), 'application/octet-stream');
          break;
        } catch (e) {
          // A dropped connection: resend (the server takes a resent last chunk once).
          if (cancel.aborted || (e instanceof CliError && !e.message.startsWith('cannot reach')) || attempt === 3)
            throw e;
          await new Promise((r) => setTimeout(r, 500 * attempt));
        }
      }
      n++;
      sent += bytes.length;
      if (knownRows === null) for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) rows++;
      bar.update(sent, knownRows ?? rows);
    }
    bar.done(`uploaded ${sent} bytes in ${n} chunks; the server is validating and storing the file…`);
  } catch (e) {
    if (cancel.aborted) {
      await remove();
      throw new Cancelled(sid, null);
    }
    await remove();
    throw e;
  }

  // The commit is not aborted on Ctrl-C: the server would go on anyway. The cancel is sent beside
  // it, and the commit's answer says whether it came in time.
  let cancelled = false;
  const onCancel = () => {
    cancelled = true;
    void remove();
  };
  cancel.addEventListener('abort', onCancel, { once: true });
  try {
    const counts = await call<Counts & { sessionId: string }>(
      'POST',
      `${base}/${sid}/commit`,
      undefined,
      undefined,
      null,
    );
    if (cancelled) throw new Cancelled(sid, counts);
    return counts;
  } catch (e) {
    if (cancelled && !(e instanceof Cancelled)) throw new Cancelled(sid, null);
    throw e;
  } finally {
    cancel.removeEventListener('abort', onCancel);
  }
}
