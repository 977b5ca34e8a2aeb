import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '../util/paths';

/** The data set stays where it is (`../shared/data/locomo/locomo10.json` from the repo root); it is never copied into the repo. */
export const LOCOMO_PATH = process.env['LOOM_BENCH_LOCOMO'] ?? resolve(ROOT, '..', 'shared', 'data', 'locomo', 'locomo10.json');

export const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface LocomoTurn {
  diaId: string;
  speaker: string;
  text: string;
  role: 'user' | 'assistant';
  /** What is appended: `${speaker}: ${text}`. */
  content: string;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  evidence: string[];
  /** Raw evidence strings that could not be read as turn ids. */
  dropped: string[];
  /** Evidence ids naming no turn of the conversation (kept: they count as misses). */
  dangling: string[];
}

export interface LocomoConversation {
  sampleId: string;
  speakerA: string;
  speakerB: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

export interface LocomoData {
  path: string;
  conversations: LocomoConversation[];
  normalisation: { rawEvidence: number; split: number; fixed: string[]; dropped: string[]; dangling: string[]; questionsWithoutEvidence: number };
}

/**
 * Evidence ids: "D3:12". Some entries pack several ids ("D8:6; D9:17", "D9:1 D4:4"), some are
 * malformed ("D:11:26" for D11:26, "D30:05" with a leading zero, a bare "D"). Split on
 * separators, read `D<session>:<turn>` with an optional stray colon after the D, and drop
 * leading zeros; anything else is dropped.
 */
export function normaliseEvidence(raw: string): { ids: string[]; dropped: string[]; fixed: string[] } {
  const ids: string[] = [];
  const dropped: string[] = [];
  const fixed: string[] = [];
  for (const part of raw.split(/[\s,;]+/).filter(Boolean)) {
    const m = /^D:?(\d+):(\d+)$/i.exec(part);
    if (!m) {
      dropped.push(part);
      continue;
    }
    const id = `D${Number(m[1])}:${Number(m[2])}`;
    if (id !== part) fixed.push(`${part} -> ${id}`);
    ids.push(id);
  }
  return { ids, dropped, fixed };
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

export function loadLocomo(path = LOCOMO_PATH): LocomoData {
  if (!existsSync(path)) throw new Error(`LoCoMo data not found at ${path} (set LOOM_BENCH_LOCOMO to its path)`);
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Array<{
    sample_id: string;
    conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
    qa: Array<{ question: string; category: number; evidence?: string[] }>;
  }>;
  const norm: LocomoData['normalisation'] = { rawEvidence: 0, split: 0, fixed: [], dropped: [], dangling: [], questionsWithoutEvidence: 0 };
  const conversations = raw.map((sample) => {
    const c = sample.conversation;
    const sessions = Object.keys(c)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const s of sessions) {
      for (const t of c[`session_${s}`] as RawTurn[]) {
        const role = t.speaker === c.speaker_a ? 'user' : 'assistant';
        turns.push({ diaId: t.dia_id, speaker: t.speaker, text: t.text, role, content: `${t.speaker}: ${t.text}` });
      }
    }
    const known = new Set(turns.map((t) => t.diaId));
    const questions: LocomoQuestion[] = sample.qa.map((q) => {
      const evidence: string[] = [];
      const dropped: string[] = [];
      for (const e of q.evidence ?? []) {
        norm.rawEvidence += 1;
        const r = normaliseEvidence(e);
        if (r.ids.length > 1) norm.split += 1;
        norm.fixed.push(...r.fixed.map((f) => `${sample.sample_id}: ${f}`));
        dropped.push(...r.dropped);
        for (const id of r.ids) if (!evidence.includes(id)) evidence.push(id);
      }
      norm.dropped.push(...dropped.map((d) => `${sample.sample_id}: "${d}"`));
      const dangling = evidence.filter((id) => !known.has(id));
      norm.dangling.push(...dangling.map((d) => `${sample.sample_id}: ${d}`));
      if (evidence.length === 0) norm.questionsWithoutEvidence += 1;
      return { question: q.question, category: q.category, evidence, dropped, dangling };
    });
    return { sampleId: sample.sample_id, speakerA: c.speaker_a, speakerB: c.speaker_b, turns, questions };
  });
  return { path, conversations, normalisation: norm };
}

export function threadIdOf(conversation: LocomoConversation): string {
  return `locomo-${conversation.sampleId}`;
}

export { join };
