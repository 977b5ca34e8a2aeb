/** Reads the headers of an incoming message, whichever transport carried it. */
export function headersFromContext(ctx: unknown, names: readonly string[]): Record<string, string> {
  const carrier = (ctx as { getHeaders?: () => { get?: (k: string) => string } | undefined } | undefined)?.getHeaders?.();
  const out: Record<string, string> = {};
  if (!carrier || typeof carrier.get !== 'function') return out;
  for (const name of names) {
    const value = carrier.get(name);
    if (value) out[name] = value;
  }
  return out;
}
