export {
  createEmbeddingProvider,
  EmbeddingProviderError,
  type EmbeddingProvider,
  type EmbeddingProviderConfig,
} from './embedding/embedding.provider';
export { HashedEmbeddingProvider, HASHED_DEFAULT_DIMS } from './embedding/hashed.provider';
export { ThreadedHashedEmbeddingProvider } from './embedding/threaded-hashed.provider';
export {
  OpenAiEmbeddingProvider,
  OPENAI_MAX_INPUTS_PER_REQUEST,
  type OpenAiEmbeddingProviderOptions,
} from './embedding/openai.provider';
export { UniversalSentenceEncoderProvider, USE_DIMS, USE_MODEL } from './embedding/use.provider';
export {
  createLlmProvider,
  LlmProviderError,
  type LlmMessage,
  type LlmProvider,
  type LlmProviderConfig,
  type LlmRequest,
  type LlmResponse,
} from './llm/llm.provider';
export { FakeLlmProvider } from './llm/fake.provider';
export { OpenAiLlmProvider, type OpenAiLlmProviderOptions } from './llm/openai-llm.provider';
export { cosineSimilarity, l2Normalize, vectorProblem } from './vector';
export { ModelPrices, BUILT_IN_MODEL_PRICES, type PricedUsage } from './pricing/model-prices';
export { MeteredLlm, type LlmPurpose } from './llm/metered-llm';
