/** A provider the eval starts a Loom for: its label in the report and the environment that selects it. */
export interface ProviderSpec {
  name: string;
  /** What the report says about it (never the API key). */
  description: string;
  /** Added to Loom's environment. */
  env: Record<string, string>;
}

export const DEFAULT_PROVIDERS = ['hashed', 'use'];
/** The OpenAI-compatible endpoint given in LOOM_EVAL_EMBEDDINGS_*. */
export const ENDPOINT_PROVIDER = 'endpoint';

/**
 * The providers to evaluate. `endpoint` is any OpenAI-compatible embeddings server named by
 * LOOM_EVAL_EMBEDDINGS_BASE_URL and _MODEL (optional _API_KEY and _DIMS), the same settings as
 * Loom's own LOOM_EMBEDDINGS_*; it is added to the default list whenever the base URL is set.
 * Any other name is handed to Loom as LOOM_EMBEDDINGS_PROVIDER, so a new built-in provider needs
 * no change here.
 */
export function providerSpecs(requested: string[] | undefined, env: NodeJS.ProcessEnv = process.env): ProviderSpec[] {
  const baseUrl = env['LOOM_EVAL_EMBEDDINGS_BASE_URL'];
  const names = requested ?? [...DEFAULT_PROVIDERS, ...(baseUrl ? [ENDPOINT_PROVIDER] : [])];
  return names.map((name) => {
    if (name !== ENDPOINT_PROVIDER) {
      // USE embeds a few dozen texts a second here: appends wait for it rather than fail open.
      return { name, description: `built-in provider \`${name}\``, env: { LOOM_EMBEDDINGS_PROVIDER: name, LOOM_EMBED_REQUEST_TIMEOUT_MS: '300000' } };
    }
    const model = env['LOOM_EVAL_EMBEDDINGS_MODEL'];
    if (!baseUrl || !model) throw new Error('the endpoint provider needs LOOM_EVAL_EMBEDDINGS_BASE_URL and LOOM_EVAL_EMBEDDINGS_MODEL');
    const apiKey = env['LOOM_EVAL_EMBEDDINGS_API_KEY'];
    const dims = env['LOOM_EVAL_EMBEDDINGS_DIMS'];
    let host = baseUrl;
    try {
      const u = new URL(baseUrl);
      host = `${u.protocol}//${u.host}${u.pathname}`;
    } catch {
      /* reported as given; Loom refuses it at start-up */
    }
    return {
      name,
      description: `OpenAI-compatible endpoint ${host}, model \`${model}\`${dims ? `, ${dims} dims` : ''}`,
      env: {
        LOOM_EMBEDDINGS_PROVIDER: 'openai',
        LOOM_EMBEDDINGS_BASE_URL: baseUrl,
        LOOM_EMBEDDINGS_MODEL: model,
        ...(apiKey ? { LOOM_EMBEDDINGS_API_KEY: apiKey } : {}),
        ...(dims ? { LOOM_EMBEDDINGS_DIMS: dims } : {}),
        LOOM_EMBED_REQUEST_TIMEOUT_MS: '300000',
      },
    };
  });
}
