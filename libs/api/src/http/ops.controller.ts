import { Controller, Get, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Headers as WireHeaders } from '@loom/contracts';
import { withExtractedContext, type LoomMetrics } from '@loom/platform';
import { OpDispatcher } from '../ops/op-dispatcher';
import { Readiness } from './readiness';
import { LOOM_METRICS, OP_DISPATCHER, READINESS } from './tokens';

/** The public HTTP surface: ops, health and metrics. Thin: everything happens in the dispatcher. */
@Controller()
export class OpsController {
  constructor(
    @Inject(OP_DISPATCHER) private readonly dispatcher: OpDispatcher,
    @Inject(READINESS) private readonly readiness: Readiness,
    @Inject(LOOM_METRICS) private readonly metrics: LoomMetrics,
  ) {}

  @Post('/v1/ops/:op')
  async op(@Param('op') op: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const incoming = req.headers[WireHeaders.correlationId];
    const correlationId = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    const raw = typeof req.body === 'string' ? req.body : req.body === undefined || req.body === null ? '' : JSON.stringify(req.body);
    // An incoming W3C traceparent (and tracestate) makes the op's span a child of the caller's.
    const trace: Record<string, string> = {};
    for (const name of [WireHeaders.traceparent, WireHeaders.tracestate]) {
      const value = req.headers[name];
      if (typeof value === 'string') trace[name] = value;
    }
    const result = await withExtractedContext(trace, () => this.dispatcher.dispatch(op, raw, req.headers.authorization, correlationId));
    await reply.status(result.status).header(WireHeaders.correlationId, correlationId).header('content-type', 'application/json').send(JSON.stringify(result.body));
  }

  @Get('/healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('/readyz')
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const { checks, reasons } = await this.readiness.report();
    const ready = Object.values(checks).every(Boolean);
    const planes = this.readiness.planes?.();
    await reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, ...(Object.keys(reasons).length > 0 ? { reasons } : {}), ...(planes ? { planes } : {}) });
  }

  @Get('/metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
