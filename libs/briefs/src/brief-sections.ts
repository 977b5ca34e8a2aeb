import { AccumulatingSections, BriefListSections, type BriefEvent, type BriefListSection, type BriefSections, type BriefSectionsInput } from '@loom/contracts';
import { readsAsHigh } from '@loom/sensitivity';

/** Items each list keeps; past the cap the oldest fall off. */
export const SECTION_CAPS: Record<BriefListSection, number> = {
  decisions: 20,
  dead_ends: 12,
  done: 30,
  open_questions: 12,
  next_steps: 8,
  key_files: 30,
  constraints: 12,
  pointers: 20,
};
/** A rendered brief stays under this many characters. */
export const RENDERED_MAX_CHARS = 12_000;
const TEXT_MAX = 1_000;
const ITEM_MAX = 400;

const TITLES: Record<keyof BriefSections, string> = {
  goal: 'Goal',
  status: 'Status',
  decisions: 'Decisions',
  dead_ends: 'Dead ends',
  done: 'Done',
  open_questions: 'Open questions',
  next_steps: 'Next steps',
  key_files: 'Key files',
  constraints: 'Constraints',
  pointers: 'Pointers',
};

export function emptySections(): BriefSections {
  return { goal: '', status: '', decisions: [], dead_ends: [], done: [], open_questions: [], next_steps: [], key_files: [], constraints: [], pointers: [] };
}

const cut = (text: string, max: number): string => {
  const points = Array.from(text.trim());
  return points.length <= max ? points.join('') : points.slice(0, max - 1).join('') + '…';
};

/**
 * Events without those that read as high (a pasted key, a password, a card number): such text
 * never reaches the brief model or the builder, and so never a brief another session loads.
 */
export function screenEvents(events: readonly BriefEvent[]): { events: BriefEvent[]; held: number } {
  const plain = events.filter((e) => !readsAsHigh(e.text) && !(e.path !== undefined && readsAsHigh(e.path)));
  return { events: plain, held: events.length - plain.length };
}

/**
 * A revision without the texts and items that read as high, whoever wrote them (the model, the
 * builder or the agent): a brief is loaded into other sessions and sent to the model with the
 * next window, so it holds no secret. A held state text leaves the brief's current one in place.
 */
export function screenRevision(revision: BriefSectionsInput): { revision: BriefSectionsInput; held: number } {
  const clean: BriefSectionsInput = {};
  let held = 0;
  for (const section of ['goal', 'status'] as const) {
    const text = revision[section];
    if (text === undefined) continue;
    if (readsAsHigh(text)) held += 1;
    else clean[section] = text;
  }
  for (const section of BriefListSections) {
    const items = revision[section];
    if (items === undefined) continue;
    const plain = items.filter((i) => !readsAsHigh(i));
    held += items.length - plain.length;
    clean[section] = plain;
  }
  return { revision: clean, held };
}

/**
 * One revision applied to a brief: state sections the revision gives are replaced; decisions,
 * dead ends and done items are appended (without repeats) and capped, oldest first out.
 */
export function applyRevision(current: BriefSections, revision: BriefSectionsInput): BriefSections {
  const next: BriefSections = { ...current };
  if (revision.goal !== undefined && revision.goal.trim() !== '') next.goal = cut(revision.goal, TEXT_MAX);
  if (revision.status !== undefined && revision.status.trim() !== '') next.status = cut(revision.status, TEXT_MAX);
  for (const section of BriefListSections) {
    const items = revision[section];
    if (items === undefined) continue;
    const clean = items.map((i) => cut(i, ITEM_MAX)).filter((i) => i !== '');
    const merged = AccumulatingSections.includes(section) ? [...current[section], ...clean.filter((i) => !current[section].includes(i))] : [...new Set(clean)];
    next[section] = merged.slice(-SECTION_CAPS[section]);
  }
  return bound(next);
}

/** Drops the oldest list items until the rendered brief is under the bound. */
export function bound(sections: BriefSections): BriefSections {
  const next = { ...sections, ...Object.fromEntries(BriefListSections.map((s) => [s, [...sections[s]]])) } as BriefSections;
  while (render(next).length > RENDERED_MAX_CHARS) {
    const longest = BriefListSections.reduce((a, b) => (next[a].length >= next[b].length ? a : b));
    if (next[longest].length === 0) break;
    next[longest].shift();
  }
  return next;
}

export function render(sections: BriefSections): string {
  const parts: string[] = [];
  for (const key of Object.keys(TITLES) as Array<keyof BriefSections>) {
    const value = sections[key];
    if (typeof value === 'string') {
      if (value) parts.push(`## ${TITLES[key]}\n${value}`);
    } else if (value.length > 0) {
      parts.push(`## ${TITLES[key]}\n${value.map((v) => `- ${v}`).join('\n')}`);
    }
  }
  return parts.join('\n\n');
}

export function parseSections(json: string): BriefSections {
  try {
    const value = JSON.parse(json) as Partial<BriefSections>;
    const base = emptySections();
    return {
      ...base,
      ...Object.fromEntries(Object.entries(value).filter(([k, v]) => k in base && (typeof v === 'string' || Array.isArray(v)))),
    } as BriefSections;
  } catch {
    return emptySections();
  }
}
