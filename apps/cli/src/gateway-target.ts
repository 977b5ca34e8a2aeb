import { loadConfig } from '@loom/platform';
import { readAdminToken } from './admin-token';

/** The gateway and token a client command talks to: flags, then LOOM_URL / LOOM_TOKEN, then the local `loom up`. */
export function gatewayTarget(options: { namespace: string; url?: string | undefined; token?: string | undefined }): { url: string; token: string; namespace: string } {
  const config = loadConfig();
  const token = options.token ?? process.env['LOOM_TOKEN'] ?? config.bootstrapAdminToken ?? readAdminToken(config.dataDir);
  if (!token) throw new Error('no token: pass --token or set LOOM_TOKEN');
  return { url: options.url ?? process.env['LOOM_URL'] ?? `http://127.0.0.1:${config.port}`, token, namespace: options.namespace };
}
