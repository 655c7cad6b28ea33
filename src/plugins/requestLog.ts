// The request log: one line per request once it is answered ("request completed", with the
// request, the status, the time taken and who made it), in place of Fastify's two (incoming and
// completed). Writes and failures are logged at info, the default level; successful reads at debug.
// At info, Fastify's own request lines would cost a warm leaderboard read over half as much CPU
// again and write megabytes a second of lines nobody reads: dashboards poll, and a read changes
// nothing. `LOG_LEVEL=debug` shows reads too.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const READS = new Set(['GET', 'HEAD']);
/** pino's level numbers: a line is written when its level's is at least the logger's. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const writes = (loggerLevel: string, level: 'debug' | 'info') => (LEVELS[loggerLevel] ?? Infinity) <= LEVELS[level]!;
/** The level of a successful read's line. */
const READ_LEVEL = 'debug';

/** Whether a logger at this level writes a line for each successful read. */
export const logsReads = (loggerLevel: string): boolean => writes(loggerLevel, READ_LEVEL);

/** Fastify's log controller (its `logController` option), with the request lines above. */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // A response that failed as it was sent (the connection broke): as Fastify logs it.
    if (error) return super.requestCompleted(error, request, reply);
    const status = reply.statusCode;
    const level = READS.has(request.method) && status < 400 ? READ_LEVEL : 'info';
    if (!writes(request.log.level, level)) return;
    const who = request.principal;
    request.log[level](
      {
        req: request,
        res: reply,
        responseTime: reply.elapsedTime,
        principal: who === null ? undefined : who.kind === 'admin' ? 'admin' : `validator ${who.id}`,
        // Why it was refused, when it was (src/plugins/errors.ts): a 429 of the rate limit or of the signature budget.
        refusal: request.refusal ?? undefined,
      },
      'request completed',
    );
  }
}
