import { ConfigError } from '@loom/platform';
import { loadBriefCondenserConfig } from './brief-condenser/brief-condenser.host';
import { loadCompactorConfig } from './compactor/compactor.host';
import { loadEmbedderConfig } from './embedder/embedder.host';
import { loadErasureConfig } from './erasure/erasure.host';
import { loadGatewayConfig } from './gateway/gateway.host';
import { loadTitlerConfig } from './titler/titler.host';

const split = { LOOM_NATS_URL: 'nats://127.0.0.1:4222', LOOM_CLICKHOUSE_URL: 'http://127.0.0.1:8123' };
const problems = (load: () => unknown): string[] => {
  try {
    load();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('[issue 11: one shape] each service parses only its own variables and lists every bad one', () => {
  it('a variable another service reads never stops this one', () => {
    const others = { ...split, LOOM_EMBEDDINGS_DIMS: 'many', LOOM_PORT: 'x', LOOM_CONVERSATION_TITLER_INTERVAL_SECONDS: '0' };
    expect(problems(() => loadCompactorConfig(others))).toEqual([]);
    expect(problems(() => loadErasureConfig(others))).toEqual([]);
    expect(problems(() => loadBriefCondenserConfig(others))).toEqual([]);
    // The embedder keeps no data: a bad ClickHouse database name is not its business.
    expect(problems(() => loadEmbedderConfig({ ...split, LOOM_CLICKHOUSE_DATABASE: 'no-dashes', LOOM_COMPACTOR_METRICS_PORT: 'x' }))).toEqual([]);
    expect(problems(() => loadTitlerConfig({ ...split, LOOM_EMBEDDINGS_DIMS: 'many', LOOM_ERASURE_ATTEMPTS: '0' }))).toEqual([]);
  });

  it('every bad variable of its own is listed at once, with what it needs', () => {
    const titler = problems(() => loadTitlerConfig({ LOOM_TITLER_METRICS_PORT: 'x', LOOM_LLM_TIMEOUT_MS: '-1', LOOM_CONVERSATION_TITLER_ENABLED: 'maybe' }));
    expect(titler).toEqual([
      expect.stringContaining('LOOM_LLM_TIMEOUT_MS'),
      expect.stringContaining('LOOM_CONVERSATION_TITLER_ENABLED'),
      expect.stringContaining('LOOM_TITLER_METRICS_PORT'),
      expect.stringContaining('LOOM_NATS_URL is required'),
      expect.stringContaining('LOOM_CLICKHOUSE_URL is required'),
    ]);
    expect(problems(() => loadBriefCondenserConfig({ ...split, LOOM_BRIEF_CONDENSER_METRICS_PORT: '70000', LOOM_SESSION_BRIEF_WINDOW_CHARS: '1' }))).toEqual([
      expect.stringContaining('LOOM_SESSION_BRIEF_WINDOW_CHARS'),
      expect.stringContaining('LOOM_BRIEF_CONDENSER_METRICS_PORT'),
    ]);
    expect(problems(() => loadEmbedderConfig({}))).toEqual([expect.stringContaining('LOOM_NATS_URL is required')]);
  });

  it('the gateway refuses LOOM_BRIEFS_RUNS_IN=service without NATS, as it does for the compactor', () => {
    expect(problems(() => loadGatewayConfig({ LOOM_BRIEFS_RUNS_IN: 'service' }))).toEqual([expect.stringContaining('LOOM_BRIEFS_RUNS_IN=service needs LOOM_NATS_URL')]);
    expect(loadGatewayConfig({ ...split, LOOM_BRIEFS_RUNS_IN: 'service' }).briefCondenser.runsIn).toBe('service');
  });
});
