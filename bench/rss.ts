// Resident memory of the server process, read from /proc: the kernel's peak (VmHWM) and the
// largest VmRSS a 200 ms sampler saw in each named phase of the benchmark.
import { readFileSync } from 'node:fs';

export interface RssSampler {
  /** Peak resident set (VmHWM) in MB, or null where /proc is missing or the process is gone. */
  peakMb(): number | null;
  /** Largest VmRSS seen by the sampler, in MB, per phase named with `phase`. */
  sampledMb(): Record<string, number>;
  /** Starts a new phase. */
  phase(name: string): void;
  stop(): void;
}

/** A field of /proc/<pid>/status in MB (the kernel reports kB). */
function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export function rssSampler(pid: number): RssSampler {
  const byPhase: Record<string, number> = {};
  let current = 'start';
  const sample = () => {
    const rss = procStatusMb(pid, 'VmRSS');
    if (rss !== null) byPhase[current] = Math.max(byPhase[current] ?? 0, Math.round(rss));
  };
  const timer = setInterval(sample, 200);
  timer.unref();
  return {
    peakMb: () => procStatusMb(pid, 'VmHWM'),
    sampledMb: () => (sample(), { ...byPhase }),
    phase: (name) => {
      sample();
      current = name;
    },
    stop: () => clearInterval(timer),
  };
}
