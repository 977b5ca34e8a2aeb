import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../../../testing/src/openai-compatible.server';
import { FakeLlmProvider } from './fake.provider';
import { createLlmProvider, LlmProviderError } from './llm.provider';
import { OpenAiLlmProvider } from './openai-llm.provider';

describe('FakeLlmProvider', () => {
  it('answers every request with empty text', async () => {
    const fake = new FakeLlmProvider();
    expect(fake.name).toBe('fake');
    await expect(fake.complete({ messages: [{ role: 'user', content: 'summarise this session' }] })).resolves.toEqual({ text: '' });
  });
});

describe('OpenAiLlmProvider against the loopback OpenAI-compatible server', () => {
  let server: OpenAiCompatibleServer;

  beforeEach(async () => {
    server = await startOpenAiCompatibleServer({
      chat: (messages) => `seen ${messages.map((m) => m.role).join(',')}`,
    });
  });
  afterEach(async () => {
    await server.close();
  });

  it('sends system + messages + max_tokens and returns the text and usage', async () => {
    const llm = new OpenAiLlmProvider({ baseUrl: server.baseUrl, model: 'chat-test', apiKey: 'k' });
    const response = await llm.complete({
      system: 'You summarise coding sessions.',
      messages: [
        { role: 'user', content: 'fix the build' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'summarise' },
      ],
      maxTokens: 64,
    });
    expect(response.text).toBe('seen system,user,assistant,user');
    expect(response.usage).toEqual({ inputTokens: 9, outputTokens: 2 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.body).toEqual({
      model: 'chat-test',
      messages: [
        { role: 'system', content: 'You summarise coding sessions.' },
        { role: 'user', content: 'fix the build' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'summarise' },
      ],
      max_tokens: 64,
      stream: false,
    });
  });

  it('omits the system message and max_tokens when not given', async () => {
    const llm = new OpenAiLlmProvider({ baseUrl: server.baseUrl, model: 'm' });
    await llm.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(server.requests[0]?.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false });
  });

  it.each([
    [500, true],
    [429, true],
    [400, false],
  ])('maps HTTP %i to an LlmProviderError with retryable=%s, without echoing the conversation', async (status, retryable) => {
    server.setFailure(status);
    const llm = new OpenAiLlmProvider({ baseUrl: server.baseUrl, model: 'm' });
    const error = await llm.complete({ messages: [{ role: 'user', content: 'secret plan 7731' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmProviderError);
    expect((error as LlmProviderError).retryable).toBe(retryable);
    expect((error as LlmProviderError).message).not.toContain('7731');
  });

  it('maps connection refused to a retryable error', async () => {
    const closed = await startOpenAiCompatibleServer();
    await closed.close();
    const llm = new OpenAiLlmProvider({ baseUrl: closed.baseUrl, model: 'm' });
    const error = await llm.complete({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmProviderError);
    expect((error as LlmProviderError).retryable).toBe(true);
  });
});

describe('createLlmProvider', () => {
  it('builds the fake and openai providers', () => {
    expect(createLlmProvider({ provider: 'fake' })).toBeInstanceOf(FakeLlmProvider);
    const llm = createLlmProvider({ provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1', model: 'llama' });
    expect([llm.name, llm.model]).toEqual(['openai', 'llama']);
  });

  it('rejects an openai config without baseUrl or model', () => {
    expect(() => createLlmProvider({ provider: 'openai', model: 'm' })).toThrow(LlmProviderError);
    expect(() => createLlmProvider({ provider: 'openai', baseUrl: 'http://x/v1' })).toThrow(/baseUrl and model/);
  });
});
