/** One turn of an evaluation set, as it is appended to Loom. */
export interface EvalDoc {
  /** Stable key within the set: what rankings and answers are expressed in. */
  key: string;
  thread: string;
  role: 'user' | 'assistant';
  content: string;
  /** The client's own id when the source has one (LoCoMo's dia_id, Claude Code's uuid); otherwise Loom derives it. */
  msgId?: string;
  reasoning?: string;
}

export interface EvalQuestion {
  id: string;
  query: string;
  /** Keys of the docs that answer it (LoCoMo: every evidence turn; coding: the one answer turn). */
  relevant: string[];
  /** Rows the question counts towards besides `overall`: a LoCoMo category, or `paraphrase` / `identifier`. */
  groups: string[];
  /** Search only this thread (LoCoMo asks within its conversation); absent: the whole namespace. */
  thread?: string;
}

export interface EvalSet {
  name: 'locomo' | 'coding';
  /** Loom namespace the set is ingested into. */
  namespace: string;
  docs: EvalDoc[];
  questions: EvalQuestion[];
  /** How the set was built and what was left out, for the report. */
  notes: string[];
}

/** A ranking per question id: doc keys, best first. */
export type Rankings = Map<string, string[]>;
