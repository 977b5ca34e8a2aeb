import type { LlmRequest } from '@loom/providers';

/** Characters of conversation one extraction reads (the newest, when a session is longer). */
export const EXTRACTION_CHARS = 24_000;

/** Asks for durable facts, one per line. */
export function extractionRequest(messages: Array<{ role: string; content: string }>): LlmRequest {
  let transcript = messages.map((m) => `${m.role}: ${m.content}`).join('\n\n');
  if (transcript.length > EXTRACTION_CHARS) transcript = transcript.slice(transcript.length - EXTRACTION_CHARS);
  return {
    system:
      'You extract durable facts from a conversation between a person and a coding assistant: decisions, ' +
      'preferences, names, locations of things, conventions. One fact per line, each a short self-contained ' +
      'sentence starting with "- ". Nothing else. If there is nothing worth remembering, answer with nothing.',
    messages: [{ role: 'user', content: `Conversation:\n\n${transcript}\n\nFacts:` }],
    maxTokens: 1_024,
  };
}

/** The model's answer as facts: bullet lines, de-duplicated, each at most 1,000 characters. */
export function parseFacts(answer: string): string[] {
  const facts = answer
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter((l) => l.length >= 3 && !/^facts?:?$/i.test(l))
    .map((l) => Array.from(l).slice(0, 1_000).join(''));
  return [...new Set(facts)];
}
