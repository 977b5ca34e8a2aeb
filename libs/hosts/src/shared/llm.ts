import type { LoomConfig } from '@loom/platform';
import { createLlmProvider, type LlmProvider } from '@loom/providers';

/** The model the deployment configured for its own calls (titles, summaries, extractions, briefs). */
export function configuredLlm(config: Pick<LoomConfig, 'llm'>): LlmProvider {
  return createLlmProvider({
    provider: config.llm.provider,
    timeoutMs: config.llm.timeoutMs,
    ...(config.llm.baseUrl ? { baseUrl: config.llm.baseUrl } : {}),
    ...(config.llm.model ? { model: config.llm.model } : {}),
    ...(config.llm.apiKey ? { apiKey: config.llm.apiKey } : {}),
  });
}

/**
 * The model for brief revisions: LOOM_SESSION_BRIEF_LLM_MODEL with its key (at its own endpoint,
 * else the deployment's), else the deployment LLM itself.
 */
export function briefLlm(config: Pick<LoomConfig, 'llm' | 'briefs'>, deployment: LlmProvider): LlmProvider {
  const baseUrl = config.briefs.baseUrl ?? config.llm.baseUrl;
  if (!config.briefs.model || !config.briefs.apiKey || !baseUrl) return deployment;
  return createLlmProvider({ provider: 'openai', baseUrl, model: config.briefs.model, apiKey: config.briefs.apiKey, timeoutMs: config.llm.timeoutMs });
}
