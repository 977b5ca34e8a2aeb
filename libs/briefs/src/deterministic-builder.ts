import type { BriefEvent, BriefSectionsInput } from '@loom/contracts';

const URL = /https?:\/\/[^\s)>\]"']+/g;
const PATHISH = /(?:^|\s)((?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s:,;)])/g;

/**
 * The brief without a model: goal, status, files, errors and pointers, read off the events.
 * It never writes decisions or dead ends: those need judgement.
 */
export function deterministicRevision(events: readonly BriefEvent[], hasGoal: boolean): BriefSectionsInput {
  const revision: BriefSectionsInput = {};
  const firstUser = events.find((e) => e.kind === 'user' && e.text.trim() !== '');
  if (!hasGoal && firstUser) revision.goal = firstLine(firstUser.text);
  const lastSay = [...events].reverse().find((e) => (e.kind === 'assistant' || e.kind === 'note') && e.text.trim() !== '');
  const lastError = [...events].reverse().find((e) => e.kind === 'error' && e.text.trim() !== '');
  const status = [lastSay ? firstLine(lastSay.text) : '', lastError ? `Last error: ${firstLine(lastError.text)}` : ''].filter(Boolean).join(' · ');
  if (status) revision.status = status;
  const files = new Set<string>();
  for (const e of events) {
    if (e.path) files.add(e.path);
    if (e.kind === 'edit' || e.kind === 'read') for (const m of e.text.matchAll(PATHISH)) files.add(m[1]!);
  }
  if (files.size > 0) revision.key_files = [...files];
  const pointers = new Set<string>();
  for (const e of events) for (const m of e.text.matchAll(URL)) pointers.add(m[0]);
  if (pointers.size > 0) revision.pointers = [...pointers];
  return revision;
}

function firstLine(text: string): string {
  return (text.trim().split(/\r?\n/)[0] ?? '').slice(0, 300);
}
