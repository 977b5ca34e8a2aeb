import { createLogger, defaultDestination } from './logger';
import { formatLogLine } from './pretty';
import { inSpan, installTracing, withExtractedContext } from '../tracing/tracing';

/** A sink that keeps what it was given, as a terminal or a pipe would. */
function sink(isTTY: boolean) {
  const lines: string[] = [];
  return { lines, isTTY, write: (line: string) => lines.push(line) };
}

describe('log lines', () => {
  it('[issue 12: readable logs on a TTY] a terminal gets one readable line per entry: time, level, service, message, then the fields', () => {
    const tty = sink(true);
    const logger = createLogger('gateway', 'info', defaultDestination(tty));
    logger.info({ op: 'conversation.append', ms: 3, token: 'loom_secret' }, 'op done');
    logger.debug('not at this level');
    expect(tty.lines).toHaveLength(1);
    const line = tty.lines[0]!;
    expect(line).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} \u001b\[32mINFO \u001b\[0m gateway {2}op done {2}op=conversation\.append ms=3 token=\[redacted\]\n$/);
    expect(line).not.toContain('loom_secret');
    expect(line).not.toContain('{"level"');
  });

  it('[issue 12: JSON logs off a TTY] anything else (a pipe, a file, a collector) gets the JSON lines', () => {
    expect(defaultDestination(sink(false))).toBeUndefined();
    const piped = sink(false);
    // What pino writes to stdout when it is not a terminal, given to the same sink.
    createLogger('gateway', 'info', { write: (line: string) => piped.write(line) }).warn({ op: 'x' }, 'slow');
    expect(JSON.parse(piped.lines[0]!)).toMatchObject({ level: 'warn', service: 'gateway', op: 'x', msg: 'slow' });
  });

  it('a line that is not JSON passes through; no colour off a terminal', () => {
    expect(formatLogLine('plain words')).toBe('plain words\n');
    expect(formatLogLine('{"level":"error","time":"2026-12-01T10:00:00.000Z","service":"titler","msg":"failed","err":{"message":"boom"}}')).toBe(
      '10:00:00.000 ERROR titler  failed  err={"message":"boom"}\n',
    );
  });

  it('[issue 11: trace ids in log lines] a line written inside a span carries its trace and span ids; an incoming traceparent is the trace; outside a trace, none', async () => {
    installTracing({ mode: 'none' });
    const piped = sink(false);
    const logger = createLogger('gateway', 'info', { write: (line: string) => piped.write(line) });
    logger.info('outside');
    let ids: { traceId: string; spanId: string } | undefined;
    await withExtractedContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, () =>
      inSpan('op x', {}, async (span) => {
        ids = span.spanContext();
        logger.info('inside');
      }),
    );
    const [outside, inside] = piped.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outside).not.toHaveProperty('trace_id');
    expect(inside).toMatchObject({ msg: 'inside', trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: ids!.spanId });
    expect(ids!.spanId).not.toBe('b7ad6b7169203331');
  });
});
