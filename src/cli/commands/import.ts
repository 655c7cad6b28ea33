// `swe-scoring import`: loads a SWE-Atlas-QnA file into a competition. Straight into DATABASE_PATH
// (server stopped), or through a running server with --url, in an import session of any size.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_PATH } from '../../config.js';
import { describeStorage, openSqliteStore, openStore } from '../../db/open.js';
import { LockHeld } from '../../db/writerLock.js';
import { DomainError } from '../../errors.js';
import { StageSchema } from '../../schemas/common.js';
import { ComplexityInput } from '../../schemas/tasks.js';
import type { ImportOptions } from '../../services/importJob.js';
import { importQnaFile } from '../../services/importTasks.js';
import { CliError, type Command } from '../command.js';
import { Cancelled, uploadInSession, type Counts } from '../importSession.js';
import { progress } from '../progress.js';
import { readJudgeFile, setJudgeInStore, setJudgeViaServer, type JudgeSet } from '../judgeFile.js';
import type { JudgeInput } from '../../schemas/judge.js';

const HELP = `Usage: swe-scoring import --competition ID --file PATH [--stage S] [--complexity C]
                          [--judge FILE] [--url URL [--token-file FILE]]       (npm run import -- …)

Imports SWE-Atlas-QnA rows (a .parquet file, JSON Lines otherwise) into an existing competition.
Prints {imported, updated, unchanged}; a bad row rejects the whole file and nothing is stored.

  --competition ID   competition to import into (create it first: PUT /v1/competitions/ID)
  --file PATH        .parquet, or JSON Lines (one row a line); any size
  --stage S          screener_1, screener_2 or evaluation for every task. Left out: tasks already
                     stored keep theirs, new ones get evaluation
  --complexity C     short, medium or long for every task. Left out: stored tasks keep theirs
  --judge FILE       the judge configuration the set is graded under (SPEC 12), set on the
                     competition first unless it is the one in force; e.g.
                     fixtures/swe-atlas-qna/judge.json, the AA edition's judge. A bad file, or one
                     the competition refuses, stops the command before any task is imported
  --url URL          go through a running server, e.g. http://127.0.0.1:3000: the file is sent in
                     chunks to an import session and stored at the end, all or nothing
  --token-file FILE  file holding the admin token, with --url. Otherwise SCORING_ADMIN_TOKEN, or
                     the admin-token file beside DATABASE_PATH. Never pass the token itself
  --chunk-mib N      chunk size with --url (default 8, at most 32)

Without --url it writes to DATABASE_URL (PostgreSQL) when set, else to DATABASE_PATH (default
${DEFAULT_DATABASE_PATH}). On SQLite that needs the server stopped: a file a server runs on is
refused (one process writes a SQLite file at a time); with the server up, use --url. On PostgreSQL
running servers see it at once. Progress goes to stderr: a bar on a terminal, a line every 5 s otherwise. Ctrl-C cancels
the import session: nothing is stored, and the command says so (exit 130).`;

type Format = 'parquet' | 'jsonl';

function options(values: { stage?: string; complexity?: string }): ImportOptions {
  const o: ImportOptions = {};
  if (values.stage !== undefined) {
    const s = StageSchema.safeParse(values.stage);
    if (!s.success) throw new CliError(`--stage must be screener_1, screener_2 or evaluation, got ${values.stage}`);
    o.stage = s.data;
  }
  if (values.complexity !== undefined) {
    const c = ComplexityInput.safeParse(values.complexity);
    if (!c.success) throw new CliError(`--complexity must be short, medium or long, got ${values.complexity}`);
    o.complexity = c.data;
  }
  return o;
}

/** The admin token for --url: a file, the environment, or the server's own token file. Never argv. */
function adminToken(tokenFile: string | undefined): string {
  const fromFile = (f: string) => {
    if (!existsSync(f)) throw new CliError(`no token file at ${f}`);
    const token = readFileSync(f, 'utf8').trim();
    if (token === '') throw new CliError(`${f} is empty`);
    return token;
  };
  if (tokenFile) return fromFile(tokenFile);
  if (process.env.SCORING_ADMIN_TOKEN) return process.env.SCORING_ADMIN_TOKEN;
  const beside = join(dirname(process.env.DATABASE_PATH || DEFAULT_DATABASE_PATH), 'admin-token');
  if (existsSync(beside)) return fromFile(beside);
  throw new CliError('--url needs the admin token: --token-file FILE, or SCORING_ADMIN_TOKEN in the environment');
}

async function direct(
  competitionId: string,
  file: string,
  format: Format,
  o: ImportOptions,
  judge: JudgeInput | null,
): Promise<Counts & { judge?: JudgeSet }> {
  // Not loadConfig: that would create an admin token file, which an import does not need.
  const url = process.env.DATABASE_URL;
  const databasePath = process.env.DATABASE_PATH || DEFAULT_DATABASE_PATH;
  if (!url && !existsSync(databasePath))
    throw new CliError(`no database at ${databasePath}: start the server once to create it, or set DATABASE_PATH`);
  // On PostgreSQL the servers learn of the import as of any other process's write.
  // PostgreSQL's modules load only when asked for (openStore): `--url` imports stream and keep the client small.
  const store = url ? await openStore({ databasePath, databaseUrl: url }) : sqliteStore(databasePath);
  const where = url ? describeStorage({ databasePath, databaseUrl: url }) : databasePath;
  try {
    if (!(await store.competitions.get(competitionId))) {
      throw new CliError(
        `competition ${competitionId} does not exist in ${where}; create it first (PUT /v1/competitions/${competitionId})`,
      );
    }
    const set = judge ? await setJudgeInStore(store, competitionId, judge) : null;
    const counts = await importQnaFile(store, competitionId, file, format, o);
    return set ? { ...counts, judge: set } : counts;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const errors = e.errors ?? [];
    throw new CliError(e.detail, errors.length > 5 ? errors.map((x) => `  ${x.path}: ${x.message}`) : []);
  } finally {
    await store.close();
  }
}

/** DATABASE_PATH for this import alone: refused while a server (or another import) writes it. */
function sqliteStore(databasePath: string) {
  try {
    return openSqliteStore(databasePath, 'swe-scoring import');
  } catch (e) {
    if (!(e instanceof LockHeld)) throw e;
    throw new CliError(
      `${e.message}. Nothing was imported. If a server runs on it, import through the server: ` +
        '--url http://HOST:PORT (see swe-scoring import --help)',
    );
  }
}

async function viaServer(
  url: string,
  token: string,
  competitionId: string,
  file: string,
  format: Format,
  o: ImportOptions,
  chunkMib: number,
) {
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) return;
    process.stderr.write('\ncancelling: deleting the import session on the server…\n');
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const bar = progress(statSync(file).size);
    return await uploadInSession(
      { url, token, competitionId, file, format, ...o, chunkBytes: chunkMib * 1024 * 1024 },
      bar,
      abort.signal,
    );
  } catch (e) {
    if (!(e instanceof Cancelled)) throw e;
    if (e.stored) {
      throw new CliError(
        `Ctrl-C came too late: the server had already stored the import (${JSON.stringify(e.stored)})`,
        [],
        130,
      );
    }
    throw new CliError(
      `cancelled by Ctrl-C: import session ${e.sessionId ?? '(not opened)'} deleted on the server, nothing stored`,
      [],
      130,
    );
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export const importCommand: Command = {
  help: HELP,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        competition: { type: 'string' },
        file: { type: 'string' },
        stage: { type: 'string' },
        complexity: { type: 'string' },
        url: { type: 'string' },
        'token-file': { type: 'string' },
        token: { type: 'string' },
        'chunk-mib': { type: 'string' },
        judge: { type: 'string' },
      },
    });
    if (values.token !== undefined) {
      throw new CliError(
        '--token is no longer accepted: a token on the command line shows in shell history, `ps` and CI logs. ' +
          'Use --token-file FILE or SCORING_ADMIN_TOKEN in the environment',
      );
    }
    if (!values.competition || !values.file)
      throw new CliError('--competition and --file are required (see swe-scoring import --help)');
    const o = options(values);
    if (!existsSync(values.file)) throw new CliError(`no file at ${values.file}`);
    const format: Format = values.file.toLowerCase().endsWith('.parquet') ? 'parquet' : 'jsonl';
    const chunkMib = Number(values['chunk-mib'] ?? 8);
    if (!(chunkMib > 0 && chunkMib <= 32))
      throw new CliError(`--chunk-mib must be a number above 0, at most 32; got ${values['chunk-mib']}`);
    const judge = values.judge === undefined ? null : readJudgeFile(values.judge);
    const started = performance.now();
    let counts: Counts & { judge?: JudgeSet };
    if (values.url) {
      const token = adminToken(values['token-file']);
      const set = judge ? await setJudgeViaServer(values.url, token, values.competition, judge) : null;
      counts = await viaServer(values.url, token, values.competition, values.file, format, o, chunkMib);
      if (set) counts = { ...counts, judge: set };
    } else counts = await direct(values.competition, values.file, format, o, judge);
    const { imported, updated, unchanged } = counts;
    console.log(JSON.stringify({ imported, updated, unchanged, ...(counts.judge ? { judge: counts.judge } : {}) }));
    console.error(
      `${values.file} (${format}) into competition ${values.competition} in ${Math.round(performance.now() - started)} ms`,
    );
    return 0;
  },
};
