import { startEmbedder, type RunningEmbedder } from '@loom/hosts';
import { Subjects } from '@loom/contracts';
import { installTracing, inSpan, loadConfig } from '@loom/platform';
import { ControllableProvider, startTestNats, type TestNats } from '../../testing/src';
import { NatsRequestClient } from './nats.transport';
import { TransportError } from './request-client';

describe('NATS transport (real nats-server)', () => {
  const tracing = installTracing({ mode: 'memory' });
  let nats: TestNats;
  let client: NatsRequestClient;
  const embedders: RunningEmbedder[] = [];
  const providers = [new ControllableProvider(), new ControllableProvider()];

  beforeAll(async () => {
    nats = await startTestNats();
    const config = loadConfig({ LOOM_NATS_URL: nats.url, LOOM_LOG_LEVEL: 'silent', LOOM_EMBEDDER_LINGER_MS: '5' });
    for (const provider of providers) embedders.push(await startEmbedder(config, { provider }));
    client = await NatsRequestClient.connect(nats.url, 'test');
  });
  afterAll(async () => {
    await client.close();
    for (const e of embedders) await e.close();
    await nats.close();
  });

  it('two embedder replicas in queue group "embedder" share the requests, each answered once', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `text number ${i}`);
    const answers = await Promise.all(texts.map((t) => client.request<{ vectors: number[][] }>(Subjects.embedBatch, { texts: [t] }, { timeoutMs: 5_000 })));
    expect(answers.every((a) => a.vectors.length === 1)).toBe(true);
    const served = providers.map((p) => p.received.length);
    expect(served[0]! + served[1]!).toBe(40);
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
  });

  it('concurrent requests are micro-batched into fewer provider calls', async () => {
    const before = providers.map((p) => p.received.length);
    const spies = providers.map((p) => jest.spyOn(p, 'embed'));
    await Promise.all(Array.from({ length: 32 }, (_, i) => client.request(Subjects.embedBatch, { texts: [`batch me ${i}`] }, { timeoutMs: 5_000 })));
    const calls = spies.reduce((n, s) => n + s.mock.calls.length, 0);
    const texts = providers.reduce((n, p, i) => n + p.received.length - before[i]!, 0);
    expect(texts).toBe(32);
    expect(calls).toBeLessThan(32);
    spies.forEach((s) => s.mockRestore());
  });

  it('an invalid payload is answered in-band as invalid_input, not dropped', async () => {
    const answer = await client.request<{ error?: { code: string } }>(Subjects.embedBatch, { texts: 'not an array' }, { timeoutMs: 5_000 });
    expect(answer.error?.code).toBe('invalid_input');
  });

  it('TRACE-01: trace context rides in the NATS headers, so the embedder\'s span joins the caller\'s trace', async () => {
    tracing.exporter!.reset();
    const traceId = await inSpan('caller', {}, async (span) => {
      await client.request(Subjects.embedBatch, { texts: ['trace me'] }, { timeoutMs: 5_000 });
      return span.spanContext().traceId;
    });
    const embed = tracing.exporter!.getFinishedSpans().find((s) => s.name === 'embed.batch');
    expect(embed?.spanContext().traceId).toBe(traceId);
  });

  it('with no replica listening, a request fails at once with "no responders" instead of waiting out its timeout', async () => {
    // Classified as "no responders", not "timeout": the caller learned it without waiting 60 s.
    await expect(client.request('loom.nothing.here.v1', {}, { timeoutMs: 60_000 })).rejects.toMatchObject({ failure: 'no_responders' });
    await expect(client.request('loom.nothing.here.v1', {}, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(TransportError);
  });
});
