// How far V8 lets the server's heap grow past its live data before a full collection. Left to
// itself on a machine with memory to spare, V8 grows a heap to up to four times what is live
// (about 50 MB live at the reference competition, so some 250 MB of heap before a collection). A
// server that shares its machine with a database and other services should hold a bounded
// multiple of its data instead; the cost is more frequent full collections, which V8 runs mostly
// on another thread.
//
// The setting is V8's own `--heap-growing-percent`, applied as the process starts: V8 reads it
// each time it sets the next collection's threshold, so it needs no command-line flag and holds
// however the server is started (npm start, node dist/server.js, the Docker image).
//
// The young generation is the other part of the peak: V8 grows each semi-space to 16 MB (32 MB of
// new space, plus the space it copies into) where the server's requests need a few MB of short-lived
// objects. `--max-semi-space-size=4` holds it to 4 MB, but V8 reads that flag only as it starts, so it
// is passed on the command line: the Dockerfile's NODE_OPTIONS and `npm start` (package.json), and
// bench/launch.ts starts the bench's server so. It lowers the peak RSS by some 30 MB at the
// reference size and leaves warm reads as they are (docs/bench/README.md).
//
// Memory outside V8's heap, glibc's malloc: a block of 128 KiB or more is mapped on its own and
// returned when freed, but glibc raises that threshold to the size of each such block freed (up to
// 32 MiB), and the trim threshold to twice it. After one 8 MiB import chunk or a 0.7 MB batch body,
// later ones come from the heap and their space stays resident once freed (a node that allocates
// and frees an 8 MiB Buffer four times keeps 8 MB; test/reliability/heapGrowth.test.ts).
// `MALLOC_MMAP_THRESHOLD_=131072` fixes the threshold at glibc's own default, which turns the
// raising off. Like the young generation's limit it is read at start: it is set in the Dockerfile
// and `npm start`, and the bench's server gets it. It lowers the import phase's peak RSS and leaves
// warm reads as they are (docs/bench/README.md).
//
// Allocation-site pretenuring is off. V8 watches where objects are made, and a site whose objects
// mostly survive their first collections is switched to allocating straight into the old
// generation, for good. Ingest is such a time: a request's objects live across its database write.
// The same code paths (Fastify's request and reply, the routes' helpers) then serve every later
// read, whose objects die at once but then fill the old generation: warm reads after an ingest
// would run a full collection every second or so, where a freshly started server keeps its old
// generation flat. Without pretenuring warm reads keep their p99 and rate after an ingest, at a
// small cost to a cold leaderboard, whose objects are long-lived (docs/bench/README.md).
// V8 reads the flag at each allocation-site decision, so setting it as the process starts holds.
//
// One of Node's tick objects is held for the life of the process (`holdTickObjectMap`). Every
// `process.nextTick` makes one, as an object literal with computed keys, whose hidden class
// ("map") V8 keeps alive only while an object of that map lives. A full collection while no tick
// is queued frees it, and the next tick gets a new one. After a few of those the literal's inline
// cache in nextTick is megamorphic, and its optimized code creates every later tick object in the
// runtime (`Runtime_DefineKeyedOwnPropertyInLiteral` in perf), for good. The server's start from
// saved scores is such a time: it fills a competition's pairs a page per turn of the event loop,
// with collections between pages and hardly a tick, and warm reads on the restarted server would
// then cost a third more CPU. Holding one tick object keeps the map, and the cost as it was
// (docs/bench/README.md).
//
// The two start settings are checked as the server starts (`missingStartSettings`): started
// without them (`node dist/server.js` by hand), it says so in its log instead of quietly holding
// more memory.
import { executionAsyncResource } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';

/** Node's flags for the server, read only at start: the Dockerfile's NODE_OPTIONS, `npm start`, the bench's and the tests' servers. */
export const START_NODE_ARGS = ['--max-semi-space-size=4'];
/** The environment the server starts with there: read by glibc at start. */
export const START_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/**
 * The start settings this process lacks, each as it would be given. A flag counts as given with
 * any value, on the command line or in NODE_OPTIONS (an operator may choose another size), as does
 * the variable.
 */
export function missingStartSettings(
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  // V8 takes --max_semi_space_size as --max-semi-space-size.
  const flagName = (a: string) => a.split('=')[0]!.replace(/_/g, '-');
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map(flagName));
  const missing = START_NODE_ARGS.filter((flag) => !given.has(flagName(flag)));
  for (const [name, value] of Object.entries(START_ENV)) if (env[name] === undefined) missing.push(`${name}=${value}`);
  return missing;
}

/** SCORING_HEAP_GROWTH_PERCENT's default: a full collection once the heap is 1.5x the live data. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/** Turns allocation-site pretenuring off (see above): call before the server does any work. */
export function stopPretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/** The tick object `holdTickObjectMap` keeps. */
let heldTick: object | null = null;

/**
 * Keeps one tick object of `process.nextTick` alive, and with it the map every later one shares (see
 * above): call as the process starts, before the work that collects. Resolves with the object kept.
 */
export function holdTickObjectMap(): Promise<object> {
  return new Promise((resolve) =>
    process.nextTick(() => {
      // Inside a tick's callback the resource executing is the tick object itself.
      heldTick ??= executionAsyncResource();
      resolve(heldTick);
    }),
  );
}

/** Applies a growth percent; 0 leaves V8's own heuristics. */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
