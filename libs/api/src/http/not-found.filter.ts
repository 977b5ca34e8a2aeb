import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Headers } from '@loom/contracts';

/**
 * Errors Nest raises itself (an unknown route, a method not allowed, a body past the limit) in
 * Loom's one error shape; on `/mcp`, whose clients read JSON-RPC, as a JSON-RPC error. Op errors
 * never get here: the dispatcher answers them.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const code = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : status < 500 ? 'invalid_input' : 'internal';
    const message = status === 404 ? 'no such route; ops are POST /v1/ops/<op>' : exception instanceof Error ? exception.message : 'error';
    const correlationId = randomUUID();
    if (isMcpPath(host.switchToHttp().getRequest<FastifyRequest>().url)) {
      const rpcCode = status < 500 ? -32600 : -32603;
      const text = status === 413 ? 'invalid request: the body is too large' : status < 500 ? `invalid request: ${message}` : 'internal error';
      void reply.status(status).header(Headers.correlationId, correlationId).send({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message: text } });
      return;
    }
    void reply.status(status).header(Headers.correlationId, correlationId).send({ error: { code, message, correlation_id: correlationId } });
  }
}

function isMcpPath(url: string | undefined): boolean {
  return (url ?? '').split('?')[0]!.replace(/\/+$/, '') === '/mcp';
}
