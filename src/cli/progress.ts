// Upload progress on stderr: a bar redrawn in place on a terminal (bytes, rows, rate, ETA), plain
// lines every few seconds otherwise (CI logs, files), so neither floods its reader.
const MIB = 1024 * 1024;

export interface Progress {
  update(bytes: number, rows: number): void;
  /** Ends the bar's line and prints `message`. */
  done(message: string): void;
}

const mib = (n: number) => `${(n / MIB).toFixed(1)} MiB`;
function duration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.ceil(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`;
}

export function progress(
  total: number,
  out: NodeJS.WriteStream = process.stderr,
  now: () => number = () => performance.now(),
): Progress {
  const tty = out.isTTY === true;
  const started = now();
  let last = -Infinity;
  let line = '';
  const describe = (bytes: number, rows: number) => {
    const secs = (now() - started) / 1000;
    const rate = secs > 0 ? bytes / secs : 0;
    const eta = rate > 0 ? (total - bytes) / rate : Infinity;
    const pct = total > 0 ? Math.floor((100 * bytes) / total) : 100;
    return {
      pct,
      text: `${mib(bytes)} of ${mib(total)} (${pct}%), ${rows.toLocaleString('en-US')} rows, ${mib(rate)}/s, ETA ${duration(eta)}`,
    };
  };
  return {
    update(bytes, rows) {
      const t = now();
      if (t - last < (tty ? 100 : 5000) && bytes < total) return;
      last = t;
      const { pct, text } = describe(bytes, rows);
      if (tty) {
        const width = 24;
        const filled = Math.round((pct / 100) * width);
        line = `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`;
        out.write(`${line}\u001b[K`);
      } else {
        out.write(`uploaded ${text}\n`);
      }
    },
    done(message) {
      if (tty && line) out.write('\n');
      out.write(`${message}\n`);
    },
  };
}
