import { callOp } from '@loom/capture';
import { SearchModes, type SearchHit, type SearchMode, type SearchTurnsResponse } from '@loom/contracts';
import { gatewayTarget } from '../gateway-target';

interface SearchOptions {
  namespace: string;
  mode?: string;
  lexicalWeight?: string;
  thread?: string;
  run?: string;
  role?: string;
  agent?: string;
  limit?: string;
  all?: boolean;
  url?: string;
  token?: string;
  json?: boolean;
}

/** `loom search <query>`: conversation.search from the shell, one readable block per hit (or the answer as JSON). */
export async function searchCommand(query: string, options: SearchOptions): Promise<void> {
  if (options.mode !== undefined && !(SearchModes as readonly string[]).includes(options.mode)) throw new Error(`--mode must be one of ${SearchModes.join(', ')}`);
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) throw new Error('--limit must be a whole number from 1 to 100');
  const weight = options.lexicalWeight === undefined ? undefined : Number(options.lexicalWeight);
  if (weight !== undefined && (!Number.isFinite(weight) || weight < 0 || weight > 1)) throw new Error('--lexical-weight must be a number from 0 to 1');
  const target = gatewayTarget(options);
  const answer = await callOp<SearchTurnsResponse>(target, 'conversation.search', {
    namespace: target.namespace,
    query,
    ...(options.mode ? { search_mode: options.mode as SearchMode } : {}),
    ...(weight !== undefined ? { lexical_weight: weight } : {}),
    ...(options.thread ? { thread_id: options.thread } : {}),
    ...(options.run ? { run_id: options.run } : {}),
    ...(options.role ? { role: options.role } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(limit ? { limit } : {}),
    namespace_scope: options.all ? 'all_mine' : 'namespace',
  });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return;
  }
  process.stdout.write(renderHits(answer));
}

/** Hits as a person reads them: where each turn is, when, who said it, its score, then the excerpt on one line. */
export function renderHits(answer: SearchTurnsResponse): string {
  if (answer.hits.length === 0) return `no hits (${answer.mode})\n`;
  const blocks = answer.hits.map((hit: SearchHit, i: number) => {
    const score = hit.score === null ? '' : `  score ${hit.score.toFixed(4)}`;
    const where = `${hit.namespace}/${hit.thread_id}  ${hit.msg_id}`;
    return `${i + 1}. ${hit.ts.slice(0, 16).replace('T', ' ')}  ${hit.role} (${hit.agent})  ${where}${score}\n   ${hit.excerpt.replace(/\s+/g, ' ').trim()}`;
  });
  return `${blocks.join('\n')}\n\n${answer.hits.length} hit(s), mode ${answer.mode}\n`;
}
