import { parseTranscript } from '@loom/capture';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '../util/paths';
import type { EvalDoc, EvalSet } from './types';

export interface CodingQuestion {
  /** The transcript, relative to the shared data directory (`transcripts/...`). */
  transcript: string;
  question: string;
  kind: 'paraphrase' | 'identifier';
  /** A substring of exactly one turn's content: the turn that answers the question. */
  answer_substring: string;
}

/** The committed question set (questions and short substrings only; the transcripts stay in the shared data). */
export const CODING_SET_PATH = existsSync(join(__dirname, 'coding-set.json')) ? join(__dirname, 'coding-set.json') : join(ROOT, 'bench', 'src', 'eval', 'coding-set.json');

export class CodingSetError extends Error {
  constructor(readonly problems: string[]) {
    super(`the coding question set does not match the transcripts:\n  ${problems.join('\n  ')}`);
    this.name = 'CodingSetError';
  }
}

export function readCodingQuestions(path = CODING_SET_PATH): CodingQuestion[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { questions?: CodingQuestion[] };
  if (!Array.isArray(raw.questions)) throw new CodingSetError([`${path} has no "questions" array`]);
  return raw.questions;
}

/** A file of the shared data (`../shared/data` beside the repository, or LOOM_SHARED_DATA), read in place. */
export function sharedDataFile(rel: string): string {
  return join(process.env['LOOM_SHARED_DATA'] ?? resolve(ROOT, '..', 'shared', 'data'), ...rel.split('/'));
}

/** `transcripts/codex-rollout-x.jsonl` -> `coding-codex-rollout-x`. */
export function threadOfTranscript(transcript: string): string {
  const base = transcript.split('/').pop() ?? transcript;
  return `coding-${base.replace(/\.(jsonl|json|md|markdown)$/i, '').replace(/[^A-Za-z0-9_.-]+/g, '-')}`.slice(0, 200);
}

/**
 * The coding-session set: every transcript any question names, read with Loom's own transcript
 * parsers (libs/capture), one thread per transcript, all in one namespace, and every question
 * asked namespace-wide (a developer weeks later does not know which session it was). Each
 * answer_substring must occur in exactly one turn of that pool; anything else is an error that
 * lists every bad question, so a parser change that moves a turn's text cannot go unnoticed.
 */
export function codingSet(options: { questions?: CodingQuestion[]; dataPath?: (rel: string) => string } = {}): EvalSet {
  const questions = options.questions ?? readCodingQuestions();
  const resolvePath = options.dataPath ?? sharedDataFile;
  const transcripts = [...new Set(questions.map((q) => q.transcript))];
  const docs: EvalDoc[] = [];
  const problems: string[] = [];
  for (const transcript of transcripts) {
    const thread = threadOfTranscript(transcript);
    let text: string;
    try {
      text = readFileSync(resolvePath(transcript), 'utf8');
    } catch (error) {
      problems.push(`${transcript}: cannot be read (${(error as Error).message})`);
      continue;
    }
    const parsed = parseTranscript(transcript, text);
    parsed.turns.forEach((turn, i) => {
      if (turn.role !== 'user' && turn.role !== 'assistant') return;
      docs.push({
        key: `${thread}#${i}`,
        thread,
        role: turn.role,
        content: turn.content,
        ...(turn.msg_id ? { msgId: turn.msg_id } : {}),
        ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
      });
    });
  }
  const set: EvalSet = { name: 'coding', namespace: 'eval-coding', docs, questions: [], notes: [] };
  questions.forEach((q, i) => {
    const where = `question ${i + 1} ("${q.question.slice(0, 60)}")`;
    if (q.kind !== 'paraphrase' && q.kind !== 'identifier') problems.push(`${where}: kind must be paraphrase or identifier, not ${JSON.stringify(q.kind)}`);
    if (!q.answer_substring) problems.push(`${where}: answer_substring is empty`);
    const matches = docs.filter((d) => d.content.includes(q.answer_substring));
    if (matches.length !== 1) {
      problems.push(`${where}: answer_substring ${JSON.stringify(q.answer_substring)} matches ${matches.length} turns, not exactly 1`);
      return;
    }
    const answer = matches[0]!;
    if (answer.thread !== threadOfTranscript(q.transcript)) problems.push(`${where}: the answer turn is in ${answer.thread}, not in ${q.transcript}`);
    set.questions.push({ id: `coding#${i + 1}`, query: q.question, relevant: [answer.key], groups: [q.kind] });
  });
  if (problems.length > 0) throw new CodingSetError(problems);
  const answerTurns = new Set(set.questions.map((q) => q.relevant[0])).size;
  set.notes.push(
    `${transcripts.length} transcripts parsed by libs/capture into ${docs.length} turns (one thread each, one namespace); ${set.questions.length} questions ` +
      `(${set.questions.filter((q) => q.groups.includes('paraphrase')).length} paraphrased, ${set.questions.filter((q) => q.groups.includes('identifier')).length} naming an identifier) ` +
      `over ${answerTurns} answer turns, asked namespace-wide`,
  );
  return set;
}
