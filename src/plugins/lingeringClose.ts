// Lingering close (nginx's lingering_close, Apache's lingering close) for a request answered before
// its body was read: over the body limit (413), refused on its headers (401, 403, 404, 405, 415, 426,
// 429, a 503 while shutting down), or at the door (408, 503: ./bodyGuard.ts).
//
// Node ends a `Connection: close` answer's socket by destroying it once the answer is written
// (`socket.destroySoon()` in _http_server.js `resOnFinish`; Node 20 and 24 do no more). With body
// bytes unread in its receive buffer, the kernel then resets the connection rather than closing
// it, and a client still sending its body (many write a whole request before they read) gets
// `write EPIPE` or `ECONNRESET` instead of the answer: a batch too large for the server looks like a
// server that is down, and is sent again. Instead, once the answer is written, the server ends its
// side and reads what the client still sends, dropping each read as it comes (nothing is kept but
// the socket), until the client ends its side, LINGER_BYTES came, or LINGER_MS passed since the
// refusal; then the socket goes. A lingering socket counts against SCORING_MAX_CONNECTIONS as any
// other, and a shutdown waits for it at most LINGER_MS (less if the grace period is shorter).
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How long a refused request's connection stays open, answer included, from the refusal. */
export const LINGER_MS = 5000;
/**
 * How much of what the client still sends is read (and dropped) after the answer: twice the 32 MiB
 * body limit, so a batch up to that size sent whole before its client reads ends in the answer.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;

const lingering = new WeakSet<IncomingMessage>();

/** The connection of `request`, answered before its body was read, closes lingering (above) after the answer. */
export function lingerAfterAnswer(request: IncomingMessage): void {
  const socket = request.socket;
  // An injected request (app.inject) has no connection.
  if (!(socket instanceof Socket) || lingering.has(request)) return;
  lingering.add(request);
  // Until the answer is written, Node's parser reads the body and the request drops it.
  request.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(timer));
  socket.destroySoon = () => {
    // The answer is written: the server's side ends after it (a half-close, RFC 9112 9.6), and
    // HTTP's parser lets go of the socket: nothing that follows is parsed as a request. Node's
    // parser reads the socket's handle itself; a 'data' listener of the socket's own takes the
    // bytes from it (as for an upgrade), and the handle is set reading again.
    socket.end();
    if (socket.readableEnded) return void socket.destroy(); // the client ended its side already
    socket.removeAllListeners('data');
    let left = LINGER_BYTES;
    socket.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) socket.destroy();
    });
    socket.once('end', () => socket.destroy());
    readAgain(socket);
  };
}

interface Handle {
  reading?: boolean;
  readStart?: () => number;
}

/**
 * Has the socket read again once Node's HTTP parser gave its handle back: the parser may have
 * stopped it (a request that pushed back), and the stream's own start is not run again, since
 * it holds that a read it started is still under way. What Node's http server does itself when
 * a consumed socket resumes (_http_server.js `onSocketResume`, Node 20 and 24).
 */
function readAgain(socket: Socket): void {
  const handle = (socket as Socket & { _handle?: Handle | null })._handle;
  if (!handle?.readStart || handle.reading) return;
  handle.reading = true;
  handle.readStart();
}

/** A Fastify request answered before its body was read: `Connection: close` on the answer, and the linger. */
export function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  lingerAfterAnswer(request.raw);
}
