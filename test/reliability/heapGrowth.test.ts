// The heap growth setting (src/heap.ts) takes effect in the running process: the same allocation
// pattern (a growing live set, much short-lived garbage) ends with a smaller heap when it is set.
// So does stopping allocation-site pretenuring: short-lived objects stay young.
// Guards against a Node or V8 upgrade that would ignore the flag set after start. The young
// generation's limit, which V8 reads only at start, is checked where production passes it.
// glibc's mmap threshold, also read only at start, likewise; and a server started without either
// says so in its log. And one tick object held from the start keeps the map of later ones.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { START_ENV, START_NODE_ARGS } from '../../src/heap.js';
import { startServer, stopAllServers } from '../support/serverProcess.js';
import { tempDir } from '../support/tempDir.js';

const HEAP = fileURLToPath(new URL('../../src/heap.ts', import.meta.url));

/** Runs an ES module script (through tsx, so it can import src/) in a new node and returns the number it prints. */
async function numberPrinted(script: string, flags: string[] = []): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...flags,
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ]);
  return Number(stdout.trim());
}

/** The process's largest heap (MB) over the run, with the growth percent applied first. */
async function heapAfterChurn(percent: number): Promise<number> {
  const script = `
    const { limitHeapGrowth } = await import(${JSON.stringify(HEAP)});
    limitHeapGrowth(${percent});
    const live = [];
    let peak = 0;
    for (let i = 0; i < 300000; i++) live.push({ a: 'x' + i, b: i * 1.5 });
    for (let r = 0; r < 50; r++) {
      const garbage = [];
      for (let i = 0; i < 100000; i++) garbage.push({ a: 'y' + i, b: [i, i + 1] });
      if (r % 5 === 0) live.push(JSON.parse(JSON.stringify(garbage.slice(0, 40000))).length);
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    console.log(peak / 1e6);`;
  return numberPrinted(script);
}

it('a growth percent holds the heap nearer its live data than V8 left to itself', async () => {
  const own = await heapAfterChurn(0);
  const limited = await heapAfterChurn(25);
  console.log(`[heap] largest heap: ${own.toFixed(0)} MB left to V8, ${limited.toFixed(0)} MB at 25%`);
  expect(limited).toBeLessThan(own * 0.8);
});

/**
 * How far (MB) the old generation grows while one function makes short-lived objects, after the
 * same function's objects first all lived on (as a request's during ingest), with or without
 * stopPretenuring applied first.
 */
async function oldGrowthAfterLongLivedPhase(stop: boolean): Promise<number> {
  const script = `
    const v8 = await import('node:v8');
    const { stopPretenuring } = await import(${JSON.stringify(HEAP)});
    if (${stop}) stopPretenuring();
    const make = (i) => ({ id: i, name: 'n' + i, tags: [i, i + 1], nested: { a: i, b: 'x' } });
    let kept = [];
    for (let r = 0; r < 20; r++) {
      const batch = [];
      for (let i = 0; i < 100000; i++) batch.push(make(i));
      kept.push(batch);
      await new Promise((go) => setImmediate(go));
    }
    kept = null;
    const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
    const before = old();
    let peak = 0;
    for (let r = 0; r < 60; r++) {
      let sum = 0;
      for (let i = 0; i < 20000; i++) sum += make(i).id;
      if (sum < 0) throw new Error('unreachable');
      peak = Math.max(peak, old() - before);
      if (r % 10 === 0) await new Promise((go) => setImmediate(go));
    }
    console.log(peak / 1e6);`;
  return numberPrinted(script, START_NODE_ARGS);
}

it('with pretenuring stopped, short-lived objects stay out of the old generation after their site made long-lived ones', async () => {
  const stopped = await oldGrowthAfterLongLivedPhase(true);
  // That the scenario makes V8 pretenure, the check that this test can fail. V8 decides from its
  // collections' timing: 12 runs out of 12 here grew the old generation ~220 MB, but one CI run only
  // 17 MB (2026-12-03). Up to three tries; the setting under test, `stopped`, is held every time.
  let own = 0;
  for (let tries = 0; tries < 3 && own <= stopped * 5; tries++) own = await oldGrowthAfterLongLivedPhase(false);
  console.log(
    `[heap] old generation growth from short-lived objects: ${own.toFixed(1)} MB pretenured, ${stopped.toFixed(1)} MB stopped`,
  );
  expect(stopped).toBeLessThan(20);
  expect(own).toBeGreaterThan(stopped * 5);
});

/** The new space's size (MB) after much short-lived garbage, in a node started with `flags`. */
async function newSpaceAfterChurn(flags: string[]): Promise<number> {
  const script = `
    const v8 = require('node:v8');
    let kept = [];
    for (let i = 0; i < 3000000; i++) { kept.push({ a: i }); if (kept.length > 50000) kept = []; }
    console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);`;
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, '-e', script]);
  return Number(stdout.trim());
}

/**
 * After five full collections with no tick queued between them: -1 when the first tick object is
 * gone; else 1 when a tick object made then has its map, 0 when not. The first is the one
 * `holdTickObjectMap` keeps, or a plain tick's.
 */
async function firstTickAfterCollections(hold: boolean): Promise<number> {
  const script = `
    const { executionAsyncResource } = await import('node:async_hooks');
    const { holdTickObjectMap } = await import(${JSON.stringify(HEAP)});
    const tick = () => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
    const first = new WeakRef(await ${hold ? 'holdTickObjectMap()' : 'tick()'});
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    globalThis.kept = first.deref();
    globalThis.later = await tick();
    // V8's own comparison of two objects' maps (--allow-natives-syntax), parsed by V8 alone.
    console.log(globalThis.kept === undefined ? -1 : (0, eval)('%HaveSameMap(kept, later)') ? 1 : 0);`;
  return numberPrinted(script, ['--allow-natives-syntax', '--expose-gc']);
}

it('one tick object held from the start keeps the map later ones share; without it the first is collected', async () => {
  // The premise: nothing else holds a tick object, so a collection frees it and its map.
  expect(await firstTickAfterCollections(false)).toBe(-1);
  expect(await firstTickAfterCollections(true)).toBe(1);
});

it("production's start commands pass the young generation's limit, and node honours it", async () => {
  const root = new URL('../../', import.meta.url);
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
  const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const nodeOptions = /NODE_OPTIONS=(\S+)/.exec(dockerfile)?.[1] ?? '';
  for (const flag of START_NODE_ARGS) {
    expect(nodeOptions.split(' '), 'Dockerfile NODE_OPTIONS').toContain(flag);
    expect(start.split(' '), 'npm start').toContain(flag);
  }
  const own = await newSpaceAfterChurn([]);
  const held = await newSpaceAfterChurn(START_NODE_ARGS);
  console.log(`[heap] new space after churn: ${own} MB left to V8, ${held} MB with ${START_NODE_ARGS.join(' ')}`);
  expect(held).toBeLessThanOrEqual(8);
  expect(held).toBeLessThan(own);
});

/** RSS (MB) a node keeps after allocating and freeing an 8 MiB Buffer four times, with `env` added. */
async function keptAfterBigBuffers(env: Record<string, string>): Promise<number> {
  const script = `
    const mb = () => process.memoryUsage().rss / 1048576;
    const settle = async () => { gc(); await new Promise((r) => setTimeout(r, 50)); gc(); };
    (async () => {
      await settle();
      const before = mb();
      for (let i = 0; i < 4; i++) { let b = Buffer.alloc(8 << 20, 1); b = null; await settle(); }
      await settle();
      console.log(mb() - before);
    })();`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', script], {
    env: { ...process.env, ...env },
  });
  return Number(stdout.trim());
}

// glibc only (the Docker image is Debian; musl has no such threshold).
const glibc = Boolean(
  (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime,
);

it.runIf(glibc)(
  "production's start commands fix glibc's mmap threshold, and freed big buffers leave the process",
  async () => {
    const root = new URL('../../', import.meta.url);
    const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
    const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } })
      .scripts.start;
    for (const [name, value] of Object.entries(START_ENV)) {
      expect(dockerfile, 'Dockerfile ENV').toMatch(new RegExp(`^\\s+${name}=${value}\\b`, 'm'));
      expect(start.split(' '), 'npm start').toContain(`${name}=${value}`);
    }
    const own = await keptAfterBigBuffers({});
    const fixed = await keptAfterBigBuffers(START_ENV);
    console.log(
      `[heap] kept after four 8 MiB buffers: ${own.toFixed(1)} MB by default, ${fixed.toFixed(1)} MB with the fixed threshold`,
    );
    expect(own).toBeGreaterThan(4);
    expect(fixed).toBeLessThan(2);
  },
);

it('a server started without the start settings says which it lacks; one started with them says nothing', async () => {
  const tmp = tempDir('start-settings');
  try {
    const bare = await startServer({ dbPath: join(tmp.dir, 'bare.db'), startSettings: false });
    await bare.stop();
    const warning = bare
      .output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; missing?: string[] })
      .find((entry) => entry.missing);
    expect(warning?.level, bare.output()).toBe(40); // pino's warn
    expect(warning?.missing).toEqual([...START_NODE_ARGS, ...Object.entries(START_ENV).map(([k, v]) => `${k}=${v}`)]);

    const given = await startServer({ dbPath: join(tmp.dir, 'given.db') });
    await given.stop();
    expect(given.output()).not.toContain('start settings');
  } finally {
    await stopAllServers();
    tmp.remove();
  }
});
