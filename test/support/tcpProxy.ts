// A TCP proxy in the test process, in front of a real server (PostgreSQL at 127.0.0.1:5432), that
// a test turns into a real network fault:
//
// - pause(): a blackhole. Connections are still accepted, but nothing is forwarded: bytes wait in
//   the kernel's buffers (nobody reads them) and new connections are not passed on. `toClient`
//   stalls only the server's answers, so a query reaches the server and its result waits.
// - cut(): every connection is destroyed and new ones are refused (the port stops listening).
// - resume(): back to normal. Stalled bytes flow on, and the port listens again after a cut.
import net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

export interface TcpProxy {
  readonly port: number;
  /** `postgres://…` URL `url` with host and port replaced by the proxy's. */
  urlFor(url: string): string;
  pause(direction?: 'both' | 'toClient'): void;
  cut(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let paused: 'both' | 'toClient' | undefined;
  let server: net.Server;
  let port = 0;

  function link(pair: Pair): void {
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('data', (chunk) => pair.client.write(chunk));
    pair.client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => pair.client.destroy());
    applyPause(pair);
  }

  function applyPause(pair: Pair): void {
    if (paused === 'both') pair.client.pause();
    else pair.client.resume();
    if (paused) pair.upstream?.pause();
    else pair.upstream?.resume();
  }

  function accept(client: net.Socket): void {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => pair.upstream?.destroy());
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (paused === 'both') client.pause();
    else link(pair);
  }

  async function listen(): Promise<void> {
    server = net.createServer(accept);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as net.AddressInfo).port;
  }

  const closeServer = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });

  function destroyAll(): void {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  }

  await listen();

  return {
    get port() {
      return port;
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    pause(direction = 'both') {
      paused = direction;
      for (const pair of pairs) applyPause(pair);
    },
    async cut() {
      paused = undefined;
      const closing = closeServer();
      destroyAll();
      await closing;
    },
    async resume() {
      paused = undefined;
      if (!server.listening) await listen();
      for (const pair of pairs) {
        if (pair.upstream) applyPause(pair);
        else link(pair);
      }
    },
    async close() {
      const closing = closeServer();
      destroyAll();
      await closing;
    },
  };
}
