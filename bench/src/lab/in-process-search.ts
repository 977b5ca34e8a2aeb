import { EmbeddingClient, type LiveSettingsService } from '@loom/conversations';
import { HashedEmbeddingProvider } from '@loom/providers';

/**
 * What a search service needs when a lab runs it in its own process, with no NATS and no
 * settings store: the hashed embedder answering the embedding client directly, and the default
 * live settings the bench's Loom runs with.
 */
export function inProcessSearchDeps(): { embedder: EmbeddingClient; settings: LiveSettingsService } {
  const provider = new HashedEmbeddingProvider();
  const requests = {
    request: async (_subject: string, body: { texts: string[] }) => {
      const vectors = await provider.embed(body.texts);
      return { model: provider.model, dims: vectors[0]!.length, vectors };
    },
  };
  const embedder = new EmbeddingClient(requests as never, 5_000);
  const settings = {
    all: async () => ({ conversation_search_default_mode: 'hybrid', conversation_search_excerpt_chars: 240, conversation_search_min_similarity: 0.3 }),
  } as unknown as LiveSettingsService;
  return { embedder, settings };
}
