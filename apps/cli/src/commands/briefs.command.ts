import { getBrief, listBriefs } from '@loom/capture';
import { loadConfig } from '@loom/platform';
import { readAdminToken } from '../admin-token';

interface BriefsOptions {
  namespace: string;
  url?: string;
  token?: string;
  json?: boolean;
  full?: boolean;
}

function target(options: BriefsOptions): { url: string; token: string; namespace: string } {
  const config = loadConfig();
  const token = options.token ?? process.env['LOOM_TOKEN'] ?? config.bootstrapAdminToken ?? readAdminToken(config.dataDir);
  if (!token) throw new Error('no token: pass --token or set LOOM_TOKEN');
  return { url: options.url ?? process.env['LOOM_URL'] ?? `http://127.0.0.1:${config.port}`, token, namespace: options.namespace };
}

/** `loom briefs list`: names and one line each, never the content (what a session-start primer shows). */
export async function briefsListCommand(options: BriefsOptions): Promise<void> {
  const { briefs } = await listBriefs(target(options));
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ briefs })}\n`);
    return;
  }
  process.stdout.write(briefs.length === 0 ? 'no saved session briefs\n' : briefs.map((b) => `${b.brief_key}\t${b.updated_at}`).join('\n') + '\n');
}

/** `loom briefs get KEY`: one brief, rendered, when the person asks for it. */
export async function briefsGetCommand(key: string, options: BriefsOptions): Promise<void> {
  const { brief } = await getBrief(target(options), key, options.full === true);
  process.stdout.write(`${brief.rendered}\n`);
  if (options.full && brief.client_summary) process.stdout.write(`\n---\n${brief.client_summary}\n`);
}
