import { ConfigError, loadConfig } from './loom.config';

describe('loadConfig', () => {
  it('gives the embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(7777);
    expect(config.clickhouse.url).toBeUndefined();
    expect(config.natsUrl).toBeUndefined();
    expect(config.embeddings.provider).toBe('hashed');
    expect(config.conversation).toEqual({ searchMinSimilarity: 0.3, searchExcerptChars: 240 });
  });

  it('chooses the OpenAI-compatible provider when a base URL is set', () => {
    const config = loadConfig({ LOOM_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1', LOOM_EMBEDDINGS_MODEL: 'm' });
    expect(config.embeddings.provider).toBe('openai');
  });

  it('lists every bad variable at once and never echoes a secret', () => {
    let error: unknown;
    try {
      loadConfig({ LOOM_PORT: 'x', LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY: '3', LOOM_BOOTSTRAP_ADMIN_TOKEN: 'short-secret', LOOM_EMBEDDINGS_PROVIDER: 'openai' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('LOOM_PORT');
    expect(problems).toContain('LOOM_CONVERSATION_SEARCH_MIN_SIMILARITY');
    expect(problems).toContain('LOOM_BOOTSTRAP_ADMIN_TOKEN');
    expect(problems).toContain('LOOM_EMBEDDINGS_BASE_URL is required');
    expect(problems).not.toContain('short-secret');
  });
});
