// A reader loop in a child process (bench/importPhase.ts): one request at a time over the given
// paths, in turn, until the parent sends "stop"; replies with every latency and the failures.
interface Start {
  baseUrl: string;
  paths: string[];
}

process.once('message', (m: Start) => {
  const latencies: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  process.on('message', (msg) => {
    if (msg === 'stop') stopped = true;
  });
  void (async () => {
    process.send!('started');
    for (let i = 0; !stopped; i++) {
      const path = m.paths[i % m.paths.length]!;
      const start = performance.now();
      try {
        const res = await fetch(`${m.baseUrl}${path}`);
        await res.arrayBuffer();
        if (res.status !== 200) failures.push(`${path} -> ${res.status}`);
      } catch (err) {
        failures.push(`${path}: ${(err as Error).message}`);
      }
      latencies.push(performance.now() - start);
    }
    process.send!({ latencies, failures }, () => process.exit(0));
  })();
});
