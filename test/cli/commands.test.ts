// One command line: `swe-scoring <command>` with --help on each, and the demo's taken port.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { ADMIN_TOKEN } from '../support/app.js';
import { cli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'swe-scoring-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('swe-scoring', () => {
  it('lists its commands with --help', async () => {
    const res = await cli('--help', []);
    expect(res.code).toBe(0);
    for (const { name } of COMMANDS) expect(res.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('loads the module of the command it runs, and no other', async () => {
    // A resolve hook in the process records every module it loads, in a file of its own.
    const log = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
        return resolved;
      }`,
    );
    const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
    const loaded = async (command: string, args: string[]) => {
      rmSync(log, { force: true });
      const res = await cli(command, args, {}, ['--import', `data:text/javascript,${encodeURIComponent(register)}`]);
      expect(res.code, res.stderr).toBe(0);
      const urls = readFileSync(log, 'utf8').split('\n');
      return [...new Set(urls.flatMap((u) => /\/cli\/commands\/(\w+)\.[jt]s$/.exec(u)?.[1] ?? []))];
    };
    expect(await loaded('--help', [])).toEqual([]);
    expect(await loaded('weights', ['--help'])).toEqual(['weights']);
    expect(await loaded('score', ['--help'])).toEqual(['offline']);
  });

  it('has an npm script for every command, running that command', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    // `serve` is `npm start`, which runs the compiled server when it is current (scripts/start.js).
    expect(scripts.start).toMatch(/ scripts\/start\.js$/);
    for (const { name } of COMMANDS.filter((c) => c.name !== 'serve')) {
      expect(scripts[name] ?? '', `npm script for ${name}`).toMatch(new RegExp(`src/cli/main\\.ts ${name}$`));
    }
  });

  it.each([
    ['serve', /stays running|until Ctrl-C/],
    ['import', /--token-file FILE/],
    ['demo', /--no-serve/],
    ['backup', /--out FILE/],
    ['restore', /--from BACKUP/],
  ])('%s --help prints its usage and exits 0', async (name, mention) => {
    const res = await cli(name, ['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^Usage: swe-scoring ${name}`));
    expect(res.stdout).toMatch(mention);
  });

  it('an unknown command or option exits 2 and says so', async () => {
    const unknown = await cli('scroe', []);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command scroe');
    const option = await cli('backup', ['--outt', 'x']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^swe-scoring backup: .*--outt/m);
  });

  it.each([
    [
      'DATABASE_URL set: the data is in PostgreSQL, not in a SQLite file left from before a move',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DATABASE_PATH: 'README.md' },
      ['--out', 'x.db'],
      /DATABASE_URL is set: .*pg_dump/,
    ],
    [
      'a file that is not SQLite',
      { DATABASE_PATH: 'README.md' },
      ['--out', 'x.db'],
      /cannot read README\.md \(DATABASE_PATH\) as a SQLite database: file is not a database/,
    ],
    [
      '--out in a folder that does not exist',
      { DATABASE_PATH: 'README.md' },
      ['--out', 'no-such-folder/x.db'],
      /no folder \S*no-such-folder: create it first \(mkdir -p -m 0700 \S*no-such-folder\)/,
    ],
    [
      '--out naming a folder',
      { DATABASE_PATH: 'README.md' },
      ['--out', 'src', '--force'],
      /src is a folder: --out names the file/,
    ],
  ])('backup refuses %s, in one line', async (_what, env, args, message) => {
    const res = await cli('backup', args, env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it.each([
    [
      'LOG_LEVEL',
      { LOG_LEVEL: 'verbose' },
      /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got verbose/,
    ],
    ['PORT', { PORT: 'abc' }, /PORT must be an integer 0\.\.65535, got abc/],
    ['DATABASE_PATH naming a folder', { DATABASE_PATH: 'src' }, /cannot open the database at src \(DATABASE_PATH\): /],
    [
      'DATABASE_URL of a server that is not there',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x', DATABASE_TIMEOUT_MS: '500' },
      /cannot open the database at postgres:\/\/127\.0\.0\.1:1\/x \(DATABASE_URL\): /,
    ],
    ['HOST', { HOST: '999.999.1.1', PORT: '0' }, /cannot listen on 999\.999\.1\.1:0 \(HOST, PORT\): /],
  ])('serve refuses to start on a bad %s, in one line naming the variable', async (_what, env, message) => {
    const res = await cli('serve', [], {
      DATABASE_PATH: join(dir, 'serve.db'),
      SCORING_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...env,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('demo: a taken PORT is said at once, with how to pick another', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const res = await cli('demo', [], {
        PORT: String(port),
        DATABASE_PATH: join(dir, 'demo.db'),
        SCORING_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`port ${port} on 127.0.0.1 is taken`);
      expect(res.stderr).toContain('PORT=3001 npm run demo');
      expect(res.stdout).not.toContain('seeded'); // said before any seeding
    } finally {
      blocker.close();
    }
  });
});
