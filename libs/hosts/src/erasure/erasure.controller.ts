import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Subjects, type ErasureRequestedEvent } from '@loom/contracts';
import type { ErasureService } from '@loom/erasure';
import { RetryLater } from '@loom/transport';
import { ERASURE } from '../shared/tokens';
import { runStoredJob } from '../shared/stored-job-delivery';

/**
 * `loom.erasure.requested.v1`, durable: the strategy validated the payload; this runs the stored
 * request under its lease and returns once it is finished (done, or failed for good), so the
 * delivery is acked only then. A crash before that delivers it again, to this replica after a
 * restart or to another; a finished request is not run twice (its record says so).
 */
@Controller()
export class ErasureController {
  constructor(@Inject(ERASURE) private readonly erasure: ErasureService) {}

  @EventPattern(Subjects.erasureRequested)
  async requested(@Payload() event: ErasureRequestedEvent): Promise<void> {
    await runStoredJob(this.erasure.queue, event.namespace, event.erasure_id, (delayMs, why) => new RetryLater(delayMs, why));
  }
}
