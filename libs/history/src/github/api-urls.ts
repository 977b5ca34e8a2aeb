/**
 * The GitHub APIs a deployment lets `code.github_sync` call (ADR 0031): LOOM_GITHUB_API_URL and
 * LOOM_GITHUB_API_URLS, nothing else. An admin could otherwise aim the gateway's requests at any
 * host its network reaches (a cloud's metadata address, an internal service) and read a piece of
 * the answer back in the error.
 */

/** An API base as compared: scheme, host (lowercase, default port dropped) and path without a trailing slash; undefined when it is not a plain http(s) URL. */
export function apiBase(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) return undefined;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** The allow-list: the deployment's default API first, then the operator's others, each once. */
export function allowedApis(defaultApi: string, others: readonly string[] = []): string[] {
  const list = [defaultApi, ...others].map((u) => apiBase(u)).filter((u): u is string => u !== undefined);
  return [...new Set(list)];
}
