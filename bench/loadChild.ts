// autocannon in a child process of its own (bench/load.ts), so the load generator runs on another
// core than the benchmark's event loop: receives its options, replies with autocannon's result.
import autocannon from 'autocannon';

process.once(
  'message',
  (options: { url: string; connections: number; duration: number; headers: Record<string, string> }) => {
    const start = process.cpuUsage();
    autocannon(options).then(
      (r) => process.send!({ ok: true, result: r, cpu: process.cpuUsage(start) }, () => process.exit(0)),
      (err: unknown) => process.send!({ ok: false, error: String(err) }, () => process.exit(1)),
    );
  },
);
