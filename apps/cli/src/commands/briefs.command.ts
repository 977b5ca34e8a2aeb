import { getBrief, listBriefs } from '@loom/capture';
import { gatewayTarget } from '../gateway-target';

interface BriefsOptions {
  namespace: string;
  url?: string;
  token?: string;
  json?: boolean;
  full?: boolean;
}

/** `loom briefs list`: names and one line each, never the content (what a session-start primer shows). */
export async function briefsListCommand(options: BriefsOptions): Promise<void> {
  const { briefs } = await listBriefs(gatewayTarget(options));
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ briefs })}\n`);
    return;
  }
  process.stdout.write(briefs.length === 0 ? 'no saved session briefs\n' : briefs.map((b) => `${b.brief_key}\t${b.updated_at}`).join('\n') + '\n');
}

/** `loom briefs get KEY`: one brief, rendered, when the person asks for it. */
export async function briefsGetCommand(key: string, options: BriefsOptions): Promise<void> {
  const { brief } = await getBrief(gatewayTarget(options), key, options.full === true);
  process.stdout.write(`${brief.rendered}\n`);
  if (options.full && brief.client_summary) process.stdout.write(`\n---\n${brief.client_summary}\n`);
}
