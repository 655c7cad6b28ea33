// `npm run import`: loads a SWE-Atlas-QnA file into a competition, through the same service as
// POST .../tasks/import. Direct to the database by default; through a running server with --url.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_PATH } from '../config.js';
import { openDatabase } from '../db/client.js';
import { createRepos } from '../db/repos.js';
import { DomainError, type ErrorField } from '../errors.js';
import { StageSchema } from '../schemas/common.js';
import { ComplexityInput } from '../schemas/tasks.js';
import { tasksService } from '../services/tasks.js';
import { auditService } from '../services/audit.js';
import type { Complexity, Stage } from '../scoring/types.js';

const HELP = `Usage: npm run import -- --competition ID --file PATH [--stage S] [--complexity C] [--url URL --token TOKEN]

Imports SWE-Atlas-QnA rows (a .parquet file, JSON Lines otherwise) into an existing competition.
Prints {imported, updated, unchanged}; a bad row rejects the whole file and nothing is stored.

  --competition ID   competition to import into (create it first: PUT /v1/competitions/ID)
  --file PATH        .parquet, or JSON Lines (one row a line)
  --stage S          stage of every task: screener_1, screener_2 or evaluation (default evaluation)
  --complexity C     short, medium or long for every task (default none)
  --url URL          go through a running server's import route, e.g. http://127.0.0.1:3000
  --token TOKEN      the admin token, with --url

Without --url it writes to DATABASE_PATH (default ./data/swe-scoring.db). Run it while the server
is stopped: a running server caches scores and would not see the import until its next write to
that competition. With the server up, pass --url and --token instead.`;

type Counts = { imported: number; updated: number; unchanged: number };

class CliError extends Error {
  constructor(message: string, readonly lines: string[] = []) { super(message); }
}

/** The detail already quotes the first few problems; list them all only when there are more. */
function problemError(p: { detail?: string; errors?: ErrorField[] }): CliError {
  const errors = p.errors ?? [];
  return new CliError(p.detail ?? 'import rejected', errors.length > 5 ? errors.map((e) => `  ${e.path}: ${e.message}`) : []);
}

async function viaServer(url: string, token: string, competitionId: string, query: URLSearchParams, body: Buffer, format: string) {
  const target = `${url.replace(/\/+$/, '')}/v1/competitions/${encodeURIComponent(competitionId)}/tasks/import?${query}`;
  const res = await fetch(target, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': format === 'parquet' ? 'application/vnd.apache.parquet' : 'application/x-ndjson',
    },
    body: new Uint8Array(body), // a copy typed over a plain ArrayBuffer, which fetch's types require
  }).catch((e: unknown) => { throw new CliError(`cannot reach ${url}: ${(e as Error).message}`); });
  const json = (await res.json().catch(() => ({}))) as Counts & { detail?: string; errors?: ErrorField[] };
  if (!res.ok) throw problemError({ ...json, detail: `${res.status}: ${json.detail ?? res.statusText}` });
  return json;
}

type Options = { stage?: Stage; complexity?: Complexity };

async function direct(competitionId: string, body: Buffer, format: 'parquet' | 'jsonl', options: Options) {
  // Not loadConfig: that would create an admin token file, which an import does not need.
  const databasePath = process.env.DATABASE_PATH || DEFAULT_DATABASE_PATH;
  if (!existsSync(databasePath)) {
    throw new CliError(`no database at ${databasePath}: start the server once to create it, or set DATABASE_PATH`);
  }
  const db = openDatabase(databasePath);
  try {
    const repos = createRepos(db);
    if (!repos.competitions.get(competitionId)) {
      throw new CliError(`competition ${competitionId} does not exist in ${databasePath}; create it first (PUT /v1/competitions/${competitionId})`);
    }
    // The operator at the machine acts as the admin, and the audit log says so.
    return await tasksService(repos, auditService(repos)).importQna(competitionId, body, format, options, { kind: 'admin' });
  } catch (e) {
    if (e instanceof DomainError) throw problemError(e);
    throw e;
  } finally {
    db.$client.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      competition: { type: 'string' }, file: { type: 'string' }, stage: { type: 'string' },
      complexity: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { console.log(HELP); return 0; }
  if (!values.competition || !values.file) throw new CliError('--competition and --file are required (see --help)');
  if (values.url && !values.token) throw new CliError('--url needs --token (the admin token)');
  const options: Options = {};
  if (values.stage !== undefined) {
    const s = StageSchema.safeParse(values.stage);
    if (!s.success) throw new CliError(`--stage must be screener_1, screener_2 or evaluation, got ${values.stage}`);
    options.stage = s.data;
  }
  if (values.complexity !== undefined) {
    const c = ComplexityInput.safeParse(values.complexity);
    if (!c.success) throw new CliError(`--complexity must be short, medium or long, got ${values.complexity}`);
    options.complexity = c.data;
  }
  if (!existsSync(values.file)) throw new CliError(`no file at ${values.file}`);
  const body = readFileSync(values.file);
  const format = values.file.toLowerCase().endsWith('.parquet') ? 'parquet' : 'jsonl';
  const started = performance.now();
  const counts = values.url
    ? await viaServer(values.url, values.token!, values.competition, new URLSearchParams(options as Record<string, string>), body, format)
    : await direct(values.competition, body, format, options);
  const { imported, updated, unchanged } = counts;
  console.log(JSON.stringify({ imported, updated, unchanged }));
  console.error(`${values.file} (${format}) into competition ${values.competition} in ${Math.round(performance.now() - started)} ms`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CliError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`import failed: ${(e as Error).message}`);
      for (const line of e instanceof CliError ? e.lines : []) console.error(line);
      process.exit(e instanceof CliError ? 1 : 2);
    }
    console.error(e);
    process.exit(1);
  },
);
