import { AuthService, TokenRepository } from '@loom/auth';
import { runMigrations, Storage } from '@loom/clickhouse';
import { ReadScopes, Roles, type ListTokensResponse, type ReadScope, type Role, type TokenInfo } from '@loom/contracts';
import { loadConfig } from '@loom/platform';
import { readAdminToken } from '../admin-token';

export interface TokenCreateOptions {
  namespace: string;
  role: string;
  readScope?: string;
  readUserId?: string;
  readSessionId?: string;
  label?: string;
  url?: string;
}

/**
 * `loom token create`: through the running gateway's `token.create` when one answers (the
 * embedded engine allows one process per data directory), else straight into storage.
 */
export async function tokenCreateCommand(options: TokenCreateOptions): Promise<void> {
  if (!(Roles as readonly string[]).includes(options.role)) throw new Error(`--role must be one of ${Roles.join(', ')}`);
  if (options.readScope && !(ReadScopes as readonly string[]).includes(options.readScope)) throw new Error(`--read-scope must be one of ${ReadScopes.join(', ')}`);
  const config = loadConfig();
  const url = options.url ?? `http://127.0.0.1:${config.port}`;
  const admin = config.bootstrapAdminToken ?? readAdminToken(config.dataDir);
  const body = {
    namespace: options.namespace,
    role: options.role,
    ...(options.readScope ? { read_scope: options.readScope } : {}),
    ...(options.readUserId ? { read_user_id: options.readUserId } : {}),
    ...(options.readSessionId ? { read_session_id: options.readSessionId } : {}),
    ...(options.label ? { label: options.label } : {}),
  };
  const viaGateway = admin ? await tryGateway(url, admin, body) : undefined;
  if (viaGateway) {
    print(viaGateway.token, viaGateway.token_id, options);
    return;
  }
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  try {
    await runMigrations(storage);
    const auth = new AuthService(new TokenRepository(storage));
    const issued = await auth.createToken('cli', {
      namespace: options.namespace,
      role: options.role as Role,
      ...(options.readScope ? { readScope: options.readScope as ReadScope } : {}),
      ...(options.readUserId ? { readUserId: options.readUserId } : {}),
      ...(options.readSessionId ? { readSessionId: options.readSessionId } : {}),
      ...(options.label ? { label: options.label } : {}),
    });
    print(issued.token, issued.tokenId, options);
  } finally {
    await storage.close();
  }
}

async function tryGateway(url: string, admin: string, body: object): Promise<{ token: string; token_id: string } | undefined> {
  let response: Response;
  try {
    response = await fetch(`${url}/v1/ops/token.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return undefined; // nothing listening: fall back to storage
  }
  const answer = (await response.json()) as { token?: string; token_id?: string; error?: { message: string } };
  if (!response.ok || !answer.token || !answer.token_id) throw new Error(`the gateway at ${url} refused: ${answer.error?.message ?? response.status}`);
  return { token: answer.token, token_id: answer.token_id };
}

function print(token: string, tokenId: string, options: TokenCreateOptions): void {
  process.stderr.write(`token ${tokenId} for namespace "${options.namespace}" with role ${options.role} (shown once; only its hash is stored):\n`);
  process.stdout.write(`${token}\n`);
}

export interface TokenAdminOptions {
  namespace?: string;
  url?: string;
  token?: string;
}

/**
 * An admin op through the running gateway, or undefined when none answers (then the caller
 * works on storage directly: the embedded engine allows one process per data directory).
 */
async function adminOp<T>(options: TokenAdminOptions, op: string, body: object): Promise<T | undefined> {
  const config = loadConfig();
  const url = options.url ?? process.env['LOOM_URL'] ?? `http://127.0.0.1:${config.port}`;
  const admin = options.token ?? config.bootstrapAdminToken ?? readAdminToken(config.dataDir) ?? process.env['LOOM_TOKEN'];
  if (!admin) return undefined;
  let response: Response;
  try {
    response = await fetch(`${url}/v1/ops/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    if (options.url) throw new Error(`cannot reach Loom at ${url}; is it running (loom up)?`);
    return undefined;
  }
  const answer = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(`the gateway at ${url} refused ${op} (${response.status}): ${answer.error?.message ?? 'no message'}`);
  return answer;
}

async function withStorageAuth<T>(work: (auth: AuthService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const storage = Storage.open({ ...config.clickhouse, dataDir: config.dataDir });
  try {
    await runMigrations(storage);
    return await work(new AuthService(new TokenRepository(storage)));
  } finally {
    await storage.close();
  }
}

/** `loom token list`: labels, roles, grants, creation and last use of each token; never a secret. */
export async function tokenListCommand(options: TokenAdminOptions & { revoked?: boolean; json?: boolean }): Promise<void> {
  const body = { ...(options.namespace ? { namespace: options.namespace } : {}), ...(options.revoked ? { include_revoked: true } : {}) };
  const tokens =
    (await adminOp<ListTokensResponse>(options, 'token.list', body))?.tokens ??
    (await withStorageAuth((auth) => auth.listTokens('cli', { ...(options.namespace ? { namespace: options.namespace } : {}), includeRevoked: options.revoked === true })));
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ tokens })}\n`);
    return;
  }
  if (tokens.length === 0) {
    process.stdout.write('no tokens\n');
    return;
  }
  const header = ['token_id', 'role', 'namespaces', 'scope', 'created', 'last used', 'label'];
  const rows = tokens.map((t) => [t.token_id + (t.revoked ? ' (revoked)' : ''), t.role, t.namespaces.join(','), scopeOf(t), minute(t.created_at), t.last_used_at ? minute(t.last_used_at) : 'never', t.label || '-']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write([line(header), ...rows.map(line)].join('\n') + '\n');
}

/** `loom token revoke <token_id>`: the token stops working (at once here, within seconds in other processes). */
export async function tokenRevokeCommand(tokenId: string, options: TokenAdminOptions): Promise<void> {
  const body = { token_id: tokenId, ...(options.namespace ? { namespace: options.namespace } : {}) };
  const viaGateway = await adminOp<{ revoked: boolean }>(options, 'token.revoke', body).catch((error: Error) => {
    throw /\(404\)/.test(error.message) ? new Error(`no token "${tokenId}" that this admin token can revoke`) : error;
  });
  const revoked = viaGateway ? viaGateway.revoked : await withStorageAuth((auth) => auth.revoke('cli', tokenId));
  if (!revoked) throw new Error(`no token "${tokenId}"`);
  process.stdout.write(`revoked ${tokenId}\n`);
}

function scopeOf(t: TokenInfo): string {
  if (t.read_scope === 'all') return 'all';
  return [t.read_scope, t.read_user_id, t.read_session_id].filter(Boolean).join(':');
}

function minute(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}
