import { bm25Baseline } from './bm25-baseline';
import { evaluateLoom, type EvalProgress, type LoomHandle, type SetRun } from './loom-run';
import type { ScoreTable } from './metrics';
import type { ProviderSpec } from './providers';
import type { EvalSet } from './types';

export interface SetSummary {
  name: EvalSet['name'];
  namespace: string;
  turns: number;
  questions: number;
  notes: string[];
  /** The in-process BM25 reference over the same turns and pools. */
  bm25: ScoreTable;
}

export interface ProviderRun {
  provider: string;
  description: string;
  /** The live similarity floor (conversation_search_min_similarity) the searches ran with. */
  floor: number | null;
  seconds: number;
  sets: SetRun[];
  /** Why this provider produced no figures (Loom did not start, a set failed to ingest...). */
  failure?: string;
}

export interface EvalFigures {
  sets: SetSummary[];
  providers: ProviderRun[];
}

/** Starts a Loom configured with the given provider's environment. */
export type LoomLauncher = (spec: ProviderSpec) => Promise<LoomHandle>;

/**
 * The evaluation: the BM25 reference for every set, then, per provider, a fresh Loom that
 * ingests every set and answers every question in every mode. A provider that fails is
 * recorded with its reason and the others still run.
 */
export async function runEval(
  sets: readonly EvalSet[],
  providers: readonly ProviderSpec[],
  launch: LoomLauncher,
  log: EvalProgress,
  options: { floor?: number } = {},
): Promise<EvalFigures> {
  const summaries: SetSummary[] = sets.map((set) => {
    const { table } = bm25Baseline(set);
    log(`${set.name}: ${set.notes.join('; ')}`);
    log(`${set.name}: BM25 reference recall@10 ${table['overall']?.recallAt10}, MRR ${table['overall']?.mrr}`);
    return { name: set.name, namespace: set.namespace, turns: set.docs.length, questions: set.questions.length, notes: set.notes, bm25: table };
  });
  const runs: ProviderRun[] = [];
  for (const spec of providers) {
    const started = Date.now();
    log(`=== provider ${spec.name}: ${spec.description} ===`);
    let loom: LoomHandle | undefined;
    try {
      loom = await launch(spec);
      const { sets: setRuns, floor } = await evaluateLoom(loom, sets, (line) => log(`[${spec.name}] ${line}`), options.floor === undefined ? {} : { floor: options.floor });
      runs.push({ provider: spec.name, description: spec.description, floor, seconds: Math.round((Date.now() - started) / 1000), sets: setRuns });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`provider ${spec.name} failed: ${message.slice(0, 500)}`);
      runs.push({ provider: spec.name, description: spec.description, floor: null, seconds: Math.round((Date.now() - started) / 1000), sets: [], failure: message.slice(0, 2000) });
    } finally {
      await loom?.stop().catch(() => undefined);
    }
  }
  return { sets: summaries, providers: runs };
}
