import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ALL_NAMESPACES } from '@loom/contracts';
import type { AuthService } from '@loom/auth';

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

export function readAdminToken(dataDir: string): string | undefined {
  const path = adminTokenPath(dataDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
}

/**
 * The first `loom up` mints an admin token for every namespace, writes it to
 * <data dir>/admin-token (mode 600) and says so once; later starts reuse the file.
 */
export async function ensureAdminToken(auth: AuthService, dataDir: string): Promise<{ token: string; created: boolean; path: string }> {
  const path = adminTokenPath(dataDir);
  const existing = readAdminToken(dataDir);
  if (existing) {
    try {
      await auth.authenticate(`Bearer ${existing}`);
      return { token: existing, created: false, path };
    } catch {
      // The file names a token this database does not know (a new database): mint a new one.
    }
  }
  const issued = await auth.createToken('cli', { namespace: ALL_NAMESPACES, role: 'admin', label: 'loom up admin' });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, issued.token + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token: issued.token, created: true, path };
}
