// Resident memory of the server process, read from /proc: the kernel's peak (VmHWM) and the
// largest VmRSS a 200 ms sampler saw in each named phase of the benchmark.
import { readFileSync } from 'node:fs';

export interface RssSampler {
  /** Peak resident set (VmHWM) in MB, or null where /proc is missing or the process is gone. */
  peakMb(): number | null;
  /** Largest VmRSS seen by the sampler, in MB, per phase named with `phase`. */
  sampledMb(): Record<string, number>;
  /** Largest anonymous (heap, stacks, malloc) and file-backed (code, mapped files) parts of the
   * VmRSS samples, in MB, per phase: where the memory is. */
  sampledPartsMb(): Record<string, { anon: number; file: number }>;
  /** Starts a new phase. */
  phase(name: string): void;
  stop(): void;
}

/** A field of /proc/<pid>/status in MB (the kernel reports kB). */
function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS' | 'RssAnon' | 'RssFile'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export function rssSampler(pid: number): RssSampler {
  const byPhase: Record<string, number> = {};
  const parts: Record<string, { anon: number; file: number }> = {};
  let current = 'start';
  const sample = () => {
    const rss = procStatusMb(pid, 'VmRSS');
    if (rss !== null) byPhase[current] = Math.max(byPhase[current] ?? 0, Math.round(rss));
    const anon = procStatusMb(pid, 'RssAnon');
    const file = procStatusMb(pid, 'RssFile');
    if (anon !== null && file !== null) {
      const p = (parts[current] ??= { anon: 0, file: 0 });
      p.anon = Math.max(p.anon, Math.round(anon));
      p.file = Math.max(p.file, Math.round(file));
    }
  };
  const timer = setInterval(sample, 200);
  timer.unref();
  return {
    peakMb: () => procStatusMb(pid, 'VmHWM'),
    sampledMb: () => (sample(), { ...byPhase }),
    sampledPartsMb: () => (sample(), structuredClone(parts)),
    phase: (name) => {
      sample();
      current = name;
    },
    stop: () => clearInterval(timer),
  };
}
