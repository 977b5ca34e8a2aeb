import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Headers } from '@loom/contracts';

/**
 * Errors Nest raises itself (an unknown route, a method not allowed) in Loom's one error shape.
 * Op errors never get here: the dispatcher answers them.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const code = status === 404 ? 'not_found' : status === 413 ? 'payload_too_large' : status < 500 ? 'invalid_input' : 'internal';
    const message = status === 404 ? 'no such route; ops are POST /v1/ops/<op>' : exception instanceof Error ? exception.message : 'error';
    const correlationId = randomUUID();
    void reply.status(status).header(Headers.correlationId, correlationId).send({ error: { code, message, correlation_id: correlationId } });
  }
}
