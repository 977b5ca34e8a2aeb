import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { LOOM_METRICS, READINESS, type Readiness } from '@loom/api';
import type { LoomMetrics } from '@loom/platform';

/** /healthz, /readyz and /metrics of a service with no API of its own (the gateway's are in OpsController). */
@Controller()
export class HealthController {
  constructor(
    @Inject(READINESS) private readonly readiness: Readiness,
    @Inject(LOOM_METRICS) private readonly metrics: LoomMetrics,
  ) {}

  @Get('/healthz')
  @HttpCode(200)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('/readyz')
  async readyz(@Res() reply: FastifyReply): Promise<void> {
    const { checks, reasons } = await this.readiness.report();
    const ready = Object.values(checks).every(Boolean);
    await reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) });
  }

  @Get('/metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
