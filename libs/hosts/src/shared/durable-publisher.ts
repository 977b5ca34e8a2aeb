import type { DurableSubject } from '@loom/contracts';
import type { Logger } from '@loom/platform';
import { ensureWorkStream, messageHeaders, publishWork, type NatsLink } from '@loom/transport';

/**
 * Hands durable work to JetStream, deduplicated by `msgId`. Called after the work was stored as
 * a row (the record), so a publish that fails loses nothing: it is logged, and the consuming
 * service's poll of storage finds the row.
 */
export function durablePublisher(link: NatsLink, logger: Logger): (subject: DurableSubject, payload: object, msgId: string) => void {
  let stream: Promise<void> | undefined;
  return (subject, payload, msgId) => {
    const headers = messageHeaders();
    stream ??= ensureWorkStream(link.connection).catch((error: unknown) => {
      stream = undefined;
      throw error;
    });
    void stream
      .then(() => publishWork(link.connection.jetstream(), subject, payload, msgId, headers))
      .catch((error: unknown) => {
        // Look for the stream again next time: the server may have come back without it.
        stream = undefined;
        logger.warn({ subject, msg_id: msgId, err: (error as Error).message }, 'could not hand durable work to JetStream; it is stored, and the service finds it on its next poll');
      });
  };
}
