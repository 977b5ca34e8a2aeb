import { AuthService, TokenRepository } from '@loom/auth';
import { runMigrations, Storage } from '@loom/clickhouse';
import { ReadScopes, Roles, type ReadScope, type Role } from '@loom/contracts';
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
