// Starts a worker thread on a module beside the caller. From the compiled build the worker is the
// .js file; from source (tsx, vitest) a tiny bootstrap registers tsx in the worker first, since a
// worker does not inherit the parent's --import hooks.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * The young generation of each worker's heap. V8 grows it to 32-48 MB under a burst of
 * allocation (an import's parse), per thread; a worker's live data is a
 * few MB, and 8 MB leaves their collections short. A cap on the young generation never stops a
 * worker (unlike one on the old generation).
 */
const LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

let bundles: string | undefined;
/**
 * Starts workers run from source from the modules' bundles in `dir` (`name`.mjs) rather than
 * under tsx: the test runs' (test/support/workerBundles.ts), built once a run.
 */
export function startWorkersFromBundles(dir: string | undefined): void {
  bundles = dir;
}

/**
 * `name` is the module's file name without extension, resolved against `base` (the caller's
 * import.meta.url). `limits` add to the young-generation cap (a bound on the old generation, for a
 * worker that may be handed more than it can hold); `workerData` is the worker's `workerData`.
 */
export function startWorker(
  name: string,
  base: string,
  options: { limits?: ResourceLimits; workerData?: unknown } = {},
): Worker {
  const entry = new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
  const resourceLimits = { ...LIMITS, ...options.limits };
  const { workerData } = options;
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { resourceLimits, workerData });
  if (bundles) return new Worker(pathToFileURL(`${bundles}/${name}.mjs`), { resourceLimits, workerData });
  // The ESM build of tsx's API, found beside the CommonJS one that require.resolve names.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`,
    { eval: true, resourceLimits, workerData },
  );
}

/** A worker stopped with jobs in flight, or with an error: `worker` is its module's name. */
export interface WorkerStop {
  worker: string;
  why: string;
  /** Its jobs in flight, each told the worker stopped. */
  jobs: number;
}

/** Workers stopped so, by name, since the process started (/metrics: scoring_worker_stops_total). */
const stops = new Map<string, number>();
const stopListeners = new Set<(s: WorkerStop) => void>();
/** Counts of workers stopped under a job or by an error, by worker. */
export const workerStops = (): ReadonlyMap<string, number> => stops;
/** Tells `f` of each such stop (the app's log); returns the unsubscribe. */
export function onWorkerStop(f: (s: WorkerStop) => void): () => void {
  stopListeners.add(f);
  return () => void stopListeners.delete(f);
}

/** One job's hold on an on-demand worker (`onDemandWorker`). */
export interface WorkerJob {
  /** The job's id: what its messages carry, to and from the worker. */
  readonly id: number;
  /** The worker the job runs on (a stopped worker fails only its own jobs). */
  readonly worker: Worker;
  /** Lets the worker go: once no job holds it for the idle time, it stops. */
  end(): void;
}

/**
 * A worker thread (`name`, beside `base`) started on first use, kept without holding the process
 * open between jobs, and stopped once no job has used it for `idleMs()` (an idle isolate keeps tens
 * of MB). Its messages go to the job their `id` names; should it stop, each of its jobs is told why
 * (`onStop`) and forgotten, and the next job starts a new worker.
 */
export function onDemandWorker<FromWorker extends { id: number }>(name: string, base: string, idleMs: () => number) {
  let worker: Worker | null = null;
  const jobs = new Map<number, { worker: Worker; onMessage(m: FromWorker): void; onStop(why: string): void }>();
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | null = null;

  function shared(): Worker {
    if (worker) return worker;
    const w = (worker = startWorker(name, base));
    let stopped = false;
    const stop = (why: string, error: boolean) => {
      if (worker === w) worker = null;
      const held = [...jobs].filter(([, job]) => job.worker === w);
      for (const [id, job] of held) {
        jobs.delete(id);
        job.onStop(why);
      }
      // Stopped by its idle timer with no job: as meant. Under a job, or by an error: counted once.
      if (stopped || (held.length === 0 && !error)) return;
      stopped = true;
      stops.set(name, (stops.get(name) ?? 0) + 1);
      for (const f of stopListeners) f({ worker: name, why, jobs: held.length });
    };
    w.on('message', (m: FromWorker) => jobs.get(m.id)?.onMessage(m));
    w.once('error', (e) => stop(e.message, true));
    w.once('exit', (code) => stop(`exit code ${code}`, false));
    w.unref();
    return w;
  }

  return {
    /** Whether the worker is running (tests, diagnostics). */
    running: () => worker !== null,
    /** Stops the worker at once, whatever it is doing (tests). */
    terminate: async (): Promise<void> => {
      await worker?.terminate();
    },
    /** Starts a job on the worker (started now if none runs); it holds the process open until `end()`. */
    start(onMessage: (m: FromWorker) => void, onStop: (why: string) => void): WorkerJob {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      const w = shared();
      const id = nextId++;
      jobs.set(id, { worker: w, onMessage, onStop });
      w.ref();
      return {
        id,
        worker: w,
        end() {
          jobs.delete(id);
          if (jobs.size > 0) return;
          w.unref();
          if (idleTimer) clearTimeout(idleTimer);
          idleTimer = setTimeout(() => {
            idleTimer = null;
            // A job that started meanwhile cancelled this timer. The next job starts a new worker
            // at once; this one's 'exit' fails no job (it has none).
            if (jobs.size > 0 || worker !== w) return;
            worker = null;
            void w.terminate();
          }, idleMs());
          idleTimer.unref();
        },
      };
    },
  };
}
