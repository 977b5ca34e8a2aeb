import type { LlmRequest } from '@loom/providers';
import type { WindowTurn } from './compaction-window';

/** The summarizer's request: earlier summaries first, then the window's turns in order. */
export function summaryRequest(folded: WindowTurn[], body: WindowTurn[], promptChars: number): LlmRequest {
  const earlier = folded.map((s) => s.content).join('\n\n');
  const lines = body.map((t) => `${t.is_summary ? 'summary of earlier turns' : t.role}: ${t.content}`);
  let conversation = lines.join('\n\n');
  // Only a first turn over the whole budget can make this longer; keep its start.
  if (conversation.length > promptChars) conversation = conversation.slice(0, promptChars);
  return {
    system:
      'You compact the transcript of a working session between a person and a coding assistant. Write a faithful, ' +
      'self-contained summary that keeps every decision, fact, name, identifier, file, number, open question and next ' +
      'step. Short paragraphs or bullet points; no preamble, no closing remarks.',
    messages: [
      {
        role: 'user',
        content: `${earlier ? `Summary of what came before:\n${earlier}\n\n` : ''}Transcript to summarise:\n\n${conversation}\n\nSummary:`,
      },
    ],
    maxTokens: 1_024,
  };
}
