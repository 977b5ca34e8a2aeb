import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ReliabilitySection } from './section';

/**
 * Every section module in `dir` (the compiled sections/ folder), lowest `order` first. A module
 * is a section if it exports `section`; adding one needs no edit anywhere else.
 */
export function discoverSections(dir: string): ReliabilitySection[] {
  const sections: ReliabilitySection[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.js')) continue;
    // Loaded at run time: which sections exist is decided by the folder, not by an import list.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(join(dir, file)) as { section?: ReliabilitySection };
    const section = loaded.section;
    if (!section) continue;
    for (const key of ['id', 'title', 'proves'] as const) {
      if (typeof section[key] !== 'string' || section[key] === '') throw new Error(`sections/${file}: section.${key} must be a non-empty string`);
    }
    if (typeof section.order !== 'number' || typeof section.run !== 'function') throw new Error(`sections/${file}: section needs a numeric order and a run function`);
    const twin = sections.find((s) => s.id === section.id);
    if (twin) throw new Error(`sections/${file}: id "${section.id}" is taken by another section`);
    sections.push(section);
  }
  return sections.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
}
