import { BriefListSections, type BriefEvent, type BriefSections, type BriefSectionsInput } from '@loom/contracts';
import type { LlmRequest } from '@loom/providers';
import { render } from './brief-sections';

/** Events as text, cut into windows of about `chars` characters each (an event never split). */
export function eventWindows(events: readonly BriefEvent[], chars: number): string[] {
  const windows: string[] = [];
  let current = '';
  for (const e of events) {
    const line = `[${e.kind}]${e.path ? ` ${e.path}` : ''} ${Array.from(e.text).slice(0, chars).join('')}\n`;
    if (current && current.length + line.length > chars) {
      windows.push(current);
      current = '';
    }
    current += line;
  }
  if (current) windows.push(current);
  return windows;
}

export function revisionRequest(current: BriefSections, window: string): LlmRequest {
  return {
    system:
      'You keep the session brief of one line of software work, so that a later session can resume it. ' +
      'Given the brief so far and what happened since, answer with one JSON object and nothing else, with keys ' +
      '"goal" and "status" (strings) and "decisions", "dead_ends", "done", "open_questions", "next_steps", ' +
      '"key_files", "constraints", "pointers" (arrays of short strings). Give the whole current state for goal, ' +
      'status, open_questions, next_steps, key_files, constraints and pointers; give only NEW items for decisions, ' +
      'dead_ends and done. Omit a key you have nothing for.',
    messages: [{ role: 'user', content: `Brief so far:\n${render(current) || '(empty)'}\n\nWhat happened since:\n${window}\n\nJSON:` }],
    maxTokens: 1_500,
  };
}

/** The model's revision, or undefined when its answer holds no usable JSON object. */
export function parseRevision(answer: string): BriefSectionsInput | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(answer.slice(start, end + 1)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const revision: BriefSectionsInput = {};
  if (typeof value['goal'] === 'string') revision.goal = value['goal'];
  if (typeof value['status'] === 'string') revision.status = value['status'];
  for (const section of BriefListSections) {
    const items = value[section];
    if (Array.isArray(items)) revision[section] = items.filter((i): i is string => typeof i === 'string');
  }
  return Object.keys(revision).length > 0 ? revision : undefined;
}
