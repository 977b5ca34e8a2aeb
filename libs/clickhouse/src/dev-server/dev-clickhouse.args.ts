// Kept apart from the entry so it can be unit-tested without loading chDB.

export interface DevClickHouseMainArgs {
  dataDir: string;
  port: number;
  host?: string;
}

/** Parses `--data-dir D --port P [--host H]` (also `--flag=value`). */
export function parseDevClickHouseArgs(args: readonly string[]): DevClickHouseMainArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(a)}`);
    const eq = a.indexOf('=');
    if (eq !== -1) {
      values.set(a.slice(2, eq), a.slice(eq + 1));
      continue;
    }
    const v = args[i + 1];
    if (v === undefined) throw new Error(`missing value for ${a}`);
    values.set(a.slice(2), v);
    i++;
  }
  for (const k of values.keys()) {
    if (k !== 'data-dir' && k !== 'port' && k !== 'host') throw new Error(`unknown option --${k}`);
  }
  const dataDir = values.get('data-dir');
  if (!dataDir) throw new Error('--data-dir is required');
  const portText = values.get('port') ?? '0';
  const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
  if (!Number.isInteger(port) || port > 65535) throw new Error(`invalid --port ${JSON.stringify(portText)}`);
  const host = values.get('host');
  return host === undefined ? { dataDir, port } : { dataDir, port, host };
}
