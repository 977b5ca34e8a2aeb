import { CATEGORY_NAMES, loadLocomo, threadIdOf } from '../locomo/data';
import type { EvalSet } from './types';

/**
 * LoCoMo as an evaluation set, ingested the way `npm run bench` does (one thread per conversation,
 * msg_id = dia_id, content "<speaker>: <text>"). Each question is asked within its conversation.
 * Questions without evidence are left out; evidence naming no turn is kept and counts as a miss.
 * `conversations` limits the set to the first N conversations (the quick run takes 2).
 */
export function locomoSet(options: { conversations?: number; path?: string } = {}): EvalSet {
  const data = loadLocomo(options.path);
  const conversations = options.conversations === undefined ? data.conversations : data.conversations.slice(0, options.conversations);
  const set: EvalSet = { name: 'locomo', namespace: 'eval-locomo', docs: [], questions: [], notes: [] };
  for (const c of conversations) {
    const thread = threadIdOf(c);
    for (const t of c.turns) set.docs.push({ key: `${thread}\t${t.diaId}`, thread, role: t.role, content: t.content, msgId: t.diaId });
    c.questions.forEach((q, i) => {
      if (q.evidence.length === 0) return;
      set.questions.push({
        id: `${c.sampleId}#${i}`,
        query: q.question,
        relevant: q.evidence.map((e) => `${thread}\t${e}`),
        groups: [`${q.category} ${CATEGORY_NAMES[q.category] ?? 'unknown'}`],
        thread,
      });
    });
  }
  set.notes.push(
    `${conversations.length} of ${data.conversations.length} conversations, ${set.docs.length} turns, ${set.questions.length} questions with evidence; each asked within its own conversation (thread_id set)`,
  );
  return set;
}
