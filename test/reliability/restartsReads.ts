// The reads of test/reliability/restartsAgree.test.ts: a server process's answers, a full recompute's
// (a fresh app over a copy of the database whose saved scores are deleted), and their comparison,
// byte for byte with the ETags, with the conditional reads a client holding an earlier body sends.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { copyDatabase } from '../../src/tools/copy/index.js';
import { testApp } from '../support/app.js';
import { withReadOnly } from '../support/dbDump.js';
import { postgresDatabaseFor, TEST_ENGINE } from '../support/engine.js';
import type { Rng } from '../support/prng.js';

export interface Answer {
  status: number;
  etag: string | null;
  type: string;
  body: string;
}

/** A form's ETag (`"<digest>-br-fast"`) as the body's own (`"<digest>"`): every form holds the same bytes, decoded. */
const plainTag = (etag: string | null) => etag?.replace(/-(gzip|br)(-fast|-pieces)?"$/, '"') ?? null;

/** How long a read may take before it counts as hung. */
export const READ_MS = 15_000;

export async function read(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  // A read that never ends is a failure of its step, not a stuck suite.
  const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(READ_MS) });
  // fetch decodes br and gzip: what is compared is the body's bytes.
  const body = Buffer.from(await res.arrayBuffer()).toString('utf8');
  return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type') ?? '', body };
}

/** A copy of the server's database, taken while it runs (one consistent snapshot), with no saved scores. */
async function copyWithoutSavedScores(dbPath: string, copyPath: string): Promise<void> {
  if (TEST_ENGINE === 'sqlite') {
    withReadOnly(dbPath, (db) => db.prepare('VACUUM INTO ?').run(copyPath));
    const db = new Database(copyPath);
    db.exec('DELETE FROM saved_scores');
    db.close();
    return;
  }
  const [from, to] = await Promise.all([postgresDatabaseFor(dbPath), postgresDatabaseFor(copyPath)]);
  await copyDatabase({ engine: 'postgres', url: from.url }, { engine: 'postgres', url: to.url });
  const client = new pg.Client({ connectionString: to.url });
  await client.connect();
  await client.query('DELETE FROM saved_scores');
  await client.end();
}

/** Every read of `paths` from a fresh app over a copy of the database with no saved scores: a full recompute. */
export async function recompute(
  dbPath: string,
  dir: string,
  step: number,
  paths: string[],
): Promise<Map<string, Answer>> {
  const copyPath = join(dir, `recompute-${step}.db`);
  await copyWithoutSavedScores(dbPath, copyPath);
  const t = await testApp({ path: copyPath });
  const out = new Map<string, Answer>();
  try {
    for (const path of paths) {
      const res = await t.app.inject({ method: 'GET', url: path });
      const etag = res.headers.etag;
      out.set(path, {
        status: res.statusCode,
        etag: typeof etag === 'string' ? etag : null,
        type: String(res.headers['content-type'] ?? ''),
        body: res.body,
      });
    }
  } finally {
    await t.close();
  }
  return out;
}

/**
 * The server's answers to a step's reads, each in a random coding, and, for a read answered before,
 * a conditional read with one of the ETags it had (a client holding that body); `check` compares
 * them with the recompute's.
 */
export function readChecker(rng: Rng) {
  /** Per read, the body the server sent under each ETag (the body's own): what a client holds. */
  const seen = new Map<string, Map<string, string>>();
  const counts = { conditional: 0, notModified: 0 };

  async function serve(base: string, paths: string[]) {
    const got = new Map<string, Answer>();
    const conditional: { path: string; tag: string; answer: Answer }[] = [];
    for (const path of paths) {
      const encoding = rng.pick(['identity', 'gzip', 'br']);
      const earlier = [...(seen.get(path)?.keys() ?? [])];
      if (earlier.length > 0 && rng.chance(0.5)) {
        const tag = rng.pick(earlier);
        // Any form's tag names the body (src/http/representation.ts namesForm).
        const sent = rng.chance(0.3) ? tag.replace(/"$/, '-gzip"') : tag;
        conditional.push({
          path,
          tag,
          answer: await read(base, path, { 'accept-encoding': encoding, 'if-none-match': sent }),
        });
      }
      got.set(path, await read(base, path, { 'accept-encoding': encoding }));
    }
    return { got, conditional };
  }

  /** The differences between the server's answers and the recompute's, in words; none when they agree. */
  async function check(base: string, served: Awaited<ReturnType<typeof serve>>, want: Map<string, Answer>) {
    const problems: string[] = [];
    for (const [path, g] of served.got) {
      const w = want.get(path)!;
      if (g.status !== w.status || g.type !== w.type || g.body !== w.body || plainTag(g.etag) !== w.etag)
        problems.push(
          `${path}: server ${g.status} ${g.etag} ${g.body.slice(0, 800)}\n   recompute ${w.status} ${w.etag} ${w.body.slice(0, 800)}`,
        );
      const tag = plainTag(g.etag);
      if (!tag) continue;
      const tags = seen.get(path) ?? new Map<string, string>();
      seen.set(path, tags.set(tag, g.body));
      // The tag just sent names the current body: a 304.
      const again = await read(base, path, { 'if-none-match': g.etag! });
      if (again.status !== 304) problems.push(`${path}: its current ETag ${g.etag} got ${again.status}`);
    }
    for (const { path, tag, answer } of served.conditional) {
      const w = want.get(path)!;
      counts.conditional++;
      if (answer.status === 304) {
        counts.notModified++;
        if (seen.get(path)!.get(tag) !== w.body)
          problems.push(`${path}: 304 for ETag ${tag}, whose body is not current`);
      } else if (answer.status !== w.status || answer.body !== w.body)
        problems.push(`${path} (If-None-Match ${tag}): ${answer.status} ${answer.body.slice(0, 400)}`);
    }
    return problems;
  }

  return { serve, check, counts };
}
