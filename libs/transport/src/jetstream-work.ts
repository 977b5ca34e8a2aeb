import { AckPolicy, DeliverPolicy, headers as natsHeaders, RetentionPolicy, StorageType, type JetStreamClient, type JsMsg, type NatsConnection } from 'nats';
import { DurableWork, type DurableSubject } from '@loom/contracts';

const ns = (ms: number): number => ms * 1_000_000;

/**
 * The work stream (`LOOM_WORK`): a work queue, so a message leaves it once a consumer acks it,
 * with a duplicate window in which a second publish under the same `Nats-Msg-Id` is dropped.
 * Producers and consumers both make sure it exists; whoever comes first creates it.
 */
export async function ensureWorkStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const subjects = Object.keys(DurableWork.subjects);
  try {
    const info = await jsm.streams.info(DurableWork.stream);
    const missing = subjects.filter((s) => !info.config.subjects.includes(s));
    if (missing.length > 0) await jsm.streams.update(DurableWork.stream, { ...info.config, subjects: [...info.config.subjects, ...missing] });
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
    await jsm.streams
      .add({
        name: DurableWork.stream,
        subjects,
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        duplicate_window: ns(DurableWork.duplicateWindowMs),
      })
      .catch(async (e: unknown) => {
        // Another process created it meanwhile.
        if (!/already in use/i.test((e as Error).message)) throw e;
      });
  }
}

/**
 * Publishes one unit of durable work. `msgId` names the work (an extraction id, an erasure id):
 * a retry of the same publish inside the duplicate window is stored once. Resolves once the
 * stream has stored it.
 */
export async function publishWork(js: JetStreamClient, subject: DurableSubject, payload: unknown, msgId: string, headers?: Record<string, string>): Promise<{ duplicate: boolean }> {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(headers ?? {})) h.set(k, v);
  const ack = await js.publish(subject, JSON.stringify(payload), { msgID: msgId, headers: h });
  return { duplicate: ack.duplicate };
}

/** The durable pull consumer of one work subject, shared by every replica of its service. */
export async function ensureWorkConsumer(nc: NatsConnection, subject: DurableSubject, ackWaitMs?: number): Promise<string> {
  const spec = { ...DurableWork.subjects[subject], ...(ackWaitMs ? { ackWaitMs } : {}) };
  const jsm = await nc.jetstreamManager();
  await jsm.consumers.add(DurableWork.stream, {
    durable_name: spec.consumer,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ns(spec.ackWaitMs),
    max_deliver: spec.maxDeliver,
  });
  return spec.consumer;
}

/** How a handler's outcome settles a message. */
export type WorkOutcome = { settle: 'ack' } | { settle: 'term'; reason: string } | { settle: 'nak'; delayMs: number };

/** Keeps a message from being redelivered while its handler still works on it. */
export function keepInProgress(message: JsMsg, ackWaitMs: number): () => void {
  const timer = setInterval(() => {
    try {
      message.working();
    } catch {
      // The connection is gone: the delivery will time out and go to another replica.
    }
  }, Math.max(200, Math.floor(ackWaitMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}
