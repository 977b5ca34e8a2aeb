import { LoomError, type ContextPackRequest, type ContextPackResponse, type MemoryHit, type ObservationView, type RecallHit, type SearchHit } from '@loom/contracts';
import type { SearchService } from '@loom/conversations';
import type { MemoryService } from './memory.service';
import type { ObservationsService } from './observations.service';

const DEFAULT_LIMIT = 8;
const DEFAULT_MAX_CHARS = 8_000;

/**
 * context.pack: the facts, the session's own turns and the evidence that bear on a query, for one
 * (user, session) scope. Each section comes from the op that owns it (memory.search,
 * conversation.search in the session's thread, memory.recall), so each keeps its rules: no high
 * text, the similarity floor, the recording switch. A section whose dependency is down is left
 * empty and named, rather than failing the whole pack.
 */
export class ContextPackService {
  constructor(
    private readonly memory: MemoryService,
    private readonly conversations: SearchService,
    private readonly observations: ObservationsService,
  ) {}

  async pack(namespace: string, agent: string, input: ContextPackRequest): Promise<ContextPackResponse> {
    const limit = input.limit ?? DEFAULT_LIMIT;
    const unavailable: string[] = [];
    const orEmpty = async <T>(section: string, read: () => Promise<T[]>): Promise<T[]> => {
      try {
        return await read();
      } catch (error) {
        if (!LoomError.isLoomError(error) || error.code !== 'unavailable') throw error;
        unavailable.push(section);
        return [];
      }
    };
    const userFilter = input.user_id !== undefined ? { user_id: input.user_id } : {};
    const [memories, conversation, evidence, actions] = await Promise.all([
      orEmpty('memories', async () => (await this.memory.search(namespace, { query: input.query, limit, ...userFilter })).hits),
      input.session_id === undefined
        ? Promise.resolve([])
        : orEmpty('conversation', async () => (await this.conversations.search({ all: false, namespaces: [namespace] }, agent, { query: input.query, thread_id: input.session_id, limit })).hits),
      orEmpty('evidence', async () => (await this.memory.recall(namespace, { query: input.query, limit, ...userFilter })).hits),
      // The session's latest tool actions, oldest first: where the work stood.
      input.session_id === undefined
        ? Promise.resolve([])
        : orEmpty('actions', async () => (await this.observations.list(namespace, agent, { session_id: input.session_id!, limit })).observations.reverse()),
    ]);
    const { text, truncated } = render(input.query, memories, conversation, evidence, input.max_chars ?? DEFAULT_MAX_CHARS, actions);
    return {
      query: input.query,
      scope: { user_id: input.user_id ?? null, session_id: input.session_id ?? null },
      memories,
      conversation,
      evidence,
      actions,
      pack: text,
      truncated,
      unavailable,
    };
  }
}

/** Markdown sections, best hits first; cut at a whole line so no hit is half there. */
export function render(
  query: string,
  memories: MemoryHit[],
  conversation: SearchHit[],
  evidence: RecallHit[],
  maxChars: number,
  actions: ObservationView[] = [],
): { text: string; truncated: boolean } {
  const flat = (text: string): string => text.replace(/\s+/g, ' ').trim();
  const lines = [`# Context for: ${flat(query)}`];
  const section = (title: string, items: string[]): void => {
    if (items.length > 0) lines.push('', `## ${title}`, ...items);
  };
  section('Facts', memories.map((m) => `- ${flat(m.text)}`));
  section('Earlier in this session', conversation.map((h) => `- [${h.role}, ${h.ts.slice(0, 16).replace('T', ' ')}] ${flat(h.excerpt)}`));
  section('Recent actions in this session', actions.map((a) => `- [${a.outcome}] ${flat(a.summary)}`));
  section('From past sessions', evidence.map((e) => `- [${e.role}, ${e.ts.slice(0, 16).replace('T', ' ')}] ${flat(e.excerpt)}`));
  if (lines.length === 1) lines.push('', 'Nothing recorded bears on this yet.');
  let text = '';
  for (const line of lines) {
    const next = text === '' ? line : `${text}\n${line}`;
    if (next.length > maxChars) return { text, truncated: true };
    text = next;
  }
  return { text, truncated: false };
}
