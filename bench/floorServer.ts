// The warm-read floor, run as a child process by bench/load.ts: plain node:http answering every
// request with the bytes and headers the parent sends it (the real server's leaderboard response),
// nothing else. Replies { port } once listening; exits when the parent disconnects.
import { createServer } from 'node:http';

interface Setup {
  body: string;
  headers: Record<string, string>;
}

process.once('message', (m: Setup) => {
  const body = Buffer.from(m.body, 'base64');
  const headers = { ...m.headers, 'content-length': String(body.length) };
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.once('disconnect', () => process.exit(0));
});
