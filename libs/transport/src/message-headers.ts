import { Headers } from '@loom/contracts';
import { currentCorrelationId, injectTraceHeaders } from '@loom/platform';

/** Headers every request carries: W3C trace context and the op's correlation id. */
export function messageHeaders(): Record<string, string> {
  const headers = injectTraceHeaders();
  const correlationId = currentCorrelationId();
  if (correlationId) headers[Headers.correlationId] = correlationId;
  return headers;
}
