// Loaded into a real command-line process (`node --import <this file as JavaScript> dist/cli/main.js …`:
// test/e2e/restoreKilled.test.ts compiles it) to stop it at a chosen point: every call that changes a
// file under KILL_POINTS_DIR (node:fs's writes, renames, links, removals, fsyncs, chmods, and
// better-sqlite3's pragma and close on a database there) is a point, numbered from 1 in the order the
// process makes them. At point KILL_POINTS_AT the process kills itself with SIGKILL before the call,
// or, with KILL_POINTS_PAUSE=1, says `paused` on stderr and waits there until it is killed. Each point
// is listed on stderr as `point N: call path`. The command itself runs unchanged: only the timing of
// the kill is chosen.
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { resolve } from 'node:path';

const dir = resolve(process.env.KILL_POINTS_DIR ?? '/nonexistent');
const at = Number(process.env.KILL_POINTS_AT ?? 0);
const pause = process.env.KILL_POINTS_PAUSE === '1';
const under = (p: unknown) => typeof p === 'string' && (resolve(p) === dir || resolve(p).startsWith(`${dir}/`));
const fds = new Set<number>();
let seen = 0;
const say = (line: string) => fs.writeSync(2, `${line}\n`);

function point(call: string, path: string): void {
  seen++;
  say(`point ${seen}: ${call} ${path}`);
  if (seen !== at) return;
  if (!pause) process.kill(process.pid, 'SIGKILL');
  say('paused');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // until killed
}

type Fn = (...args: unknown[]) => unknown;
const original = fs as unknown as Record<string, Fn>;
for (const name of ['renameSync', 'linkSync', 'rmSync', 'unlinkSync', 'chmodSync', 'writeFileSync', 'mkdirSync']) {
  const real = original[name]!;
  original[name] = function (this: unknown, ...args: unknown[]) {
    if (under(args[0]) || under(args[1]))
      point(name, args.slice(0, name === 'renameSync' || name === 'linkSync' ? 2 : 1).join(' -> '));
    return real.apply(this, args);
  };
}
const realOpen = original.openSync!;
original.openSync = function (this: unknown, ...args: unknown[]) {
  const writes = typeof args[1] === 'string' && /[wa+]/.test(args[1]);
  if (under(args[0]) && writes) point('openSync', String(args[0]));
  const fd = realOpen.apply(this, args) as number;
  if (under(args[0])) fds.add(fd);
  return fd;
};
for (const name of ['writeSync', 'fsyncSync']) {
  const real = original[name]!;
  original[name] = function (this: unknown, ...args: unknown[]) {
    if (fds.has(args[0] as number)) point(name, `fd ${String(args[0])}`);
    return real.apply(this, args);
  };
}
const realClose = original.closeSync!;
original.closeSync = function (this: unknown, ...args: unknown[]) {
  fds.delete(args[0] as number);
  return realClose.apply(this, args);
};
syncBuiltinESMExports();

// better-sqlite3 is CommonJS: the application's import gets this same class.
const Database = createRequire(import.meta.url)('better-sqlite3') as { prototype: Record<string, Fn> };
for (const name of ['pragma', 'close']) {
  const real = Database.prototype[name]!;
  Database.prototype[name] = function (this: { name: string }, ...args: unknown[]) {
    if (under(this.name)) point(`${name}${name === 'pragma' ? `(${String(args[0])})` : ''}`, this.name);
    return real.apply(this, args);
  };
}
