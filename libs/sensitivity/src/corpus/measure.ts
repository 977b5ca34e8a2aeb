import { readsAsHigh } from '../detector';
import { highSamples } from './high';
import { nearMissSamples } from './near-miss';
import type { CorpusSample } from './types';

/** How the detector did on one kind of sample. */
export interface KindFigures {
  kind: string;
  expected: 'high' | 'not high';
  samples: number;
  /** Samples the detector got wrong: high ones it missed, near misses it flagged. */
  wrong: number;
}

export interface CorpusMeasurement {
  high: number;
  nearMisses: number;
  /** Share of high samples that read as high. */
  recall: number;
  /** Share of near misses that read as high. */
  falsePositiveRate: number;
  kinds: KindFigures[];
  /** The samples it got wrong, for the test's failure message (texts are fake by construction). */
  missed: CorpusSample[];
  falsePositives: CorpusSample[];
}

/** Runs `readsAsHigh` over the whole corpus (the default seed gives the committed figures). */
export function measureDetector(seed?: number): CorpusMeasurement {
  const high = highSamples(seed);
  const nearMisses = nearMissSamples(seed);
  const missed = high.filter((sample) => !readsAsHigh(sample.text));
  const falsePositives = nearMisses.filter((sample) => readsAsHigh(sample.text));
  return {
    high: high.length,
    nearMisses: nearMisses.length,
    recall: (high.length - missed.length) / high.length,
    falsePositiveRate: falsePositives.length / nearMisses.length,
    kinds: [...figuresByKind(high, missed, 'high'), ...figuresByKind(nearMisses, falsePositives, 'not high')],
    missed,
    falsePositives,
  };
}

function figuresByKind(samples: readonly CorpusSample[], wrong: readonly CorpusSample[], expected: KindFigures['expected']): KindFigures[] {
  const byKind = new Map<string, KindFigures>();
  for (const { kind } of samples) {
    const figures = byKind.get(kind) ?? { kind, expected, samples: 0, wrong: 0 };
    figures.samples++;
    byKind.set(kind, figures);
  }
  const wrongSet = new Set(wrong);
  for (const sample of samples) if (wrongSet.has(sample)) (byKind.get(sample.kind) as KindFigures).wrong++;
  return [...byKind.values()].sort((a, b) => a.kind.localeCompare(b.kind));
}
