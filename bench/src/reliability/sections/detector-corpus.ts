import { findHighShapes } from '@loom/sensitivity';
import { measureDetector, type CorpusMeasurement, type KindFigures } from '@loom/sensitivity/corpus';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from '../../util/paths';
import type { ReliabilitySection } from '../section';

/** The committed corpus is seed 9; the full run also draws fresh corpora to show the figures are not tuned to one draw. */
const CORPUS_SEED = 9;
const EXTRA_SEEDS = [1, 2, 3, 4, 5];

export const section: ReliabilitySection = {
  id: 'detector-corpus',
  title: 'Secret detector on a corpus',
  proves:
    'How often the "reads as high" detector catches a secret (recall over every common provider key format, password/secret/token assignments in shell, .env, YAML, JSON, TOML, code and prose, URL and command-line credentials, private keys, cards with every separator, SSNs, PINs and pasted obfuscations) and how often it flags a look-alike (false positives over SHAs, UUIDs, digests, example keys, type declarations, placeholders, versions, phone numbers and prose). Targets: recall at least 0.99, false positives at most 0.02.',
  order: 40,
  async run(opts) {
    const started = Date.now();
    const main = measureDetector(CORPUS_SEED);
    opts.log(`detector corpus: ${main.high} high, ${main.nearMisses} near misses, recall ${main.recall.toFixed(4)}, false positives ${main.falsePositiveRate.toFixed(4)}`);
    const others = opts.long ? EXTRA_SEEDS.map((seed) => ({ seed, figures: measureDetector(seed) })) : [];
    for (const { seed, figures } of others) opts.log(`detector corpus seed ${seed}: recall ${figures.recall.toFixed(4)}, false positives ${figures.falsePositiveRate.toFixed(4)}`);
    return [
      summary(main),
      '',
      others.length > 0 ? otherSeeds(others) : '_Quick run: the committed corpus only (the full run adds five more seeds)._',
      '',
      realText(),
      '',
      '<details><summary>Per kind</summary>',
      '',
      kindTable(main.kinds),
      '',
      '</details>',
      '',
      `Corpus: \`libs/sensitivity/src/corpus\` (generated from seed ${CORPUS_SEED}; every credential is fake and assembled at run time). ` +
        `Measured in ${Date.now() - started} ms. The same figures are asserted by \`libs/sensitivity/src/corpus.spec.ts\`, and ` +
        '`libs/api/src/secret-leak.int-spec.ts` sends one sample of every kind through every op that calls a provider.',
    ].join('\n');
  },
};

function summary(m: CorpusMeasurement): string {
  const verdict = (ok: boolean): string => (ok ? 'met' : '**NOT met**');
  return [
    '| Set | Samples | Kinds | Wrong | Rate | Target |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    `| High (must be detected) | ${m.high} | ${m.kinds.filter((k) => k.expected === 'high').length} | ${m.missed.length} missed | recall ${m.recall.toFixed(4)} | ≥ 0.99, ${verdict(m.recall >= 0.99)} |`,
    `| Near misses (must not be) | ${m.nearMisses} | ${m.kinds.filter((k) => k.expected === 'not high').length} | ${m.falsePositives.length} flagged | false positives ${m.falsePositiveRate.toFixed(4)} | ≤ 0.02, ${verdict(m.falsePositiveRate <= 0.02)} |`,
  ].join('\n');
}

function otherSeeds(others: readonly { seed: number; figures: CorpusMeasurement }[]): string {
  return [
    '| Seed | High | Recall | Near misses | False positives |',
    '| ---: | ---: | ---: | ---: | ---: |',
    ...others.map(({ seed, figures: f }) => `| ${seed} | ${f.high} | ${f.recall.toFixed(4)} | ${f.nearMisses} | ${f.falsePositiveRate.toFixed(4)} |`),
  ].join('\n');
}

function kindTable(kinds: readonly KindFigures[]): string {
  return [
    '| Kind | Expected | Samples | Wrong |',
    '| --- | --- | ---: | ---: |',
    ...kinds.map((k) => `| ${k.kind} | ${k.expected} | ${k.samples} | ${k.wrong} |`),
  ].join('\n');
}

/** Where the shared real sessions live (never copied into the repo). */
const SHARED_DATA = process.env['LOOM_SHARED_DATA'] ?? resolve(ROOT, '..', 'shared', 'data');

/**
 * Real text has no labels, so this is not a rate: how many strings of real coding sessions and of
 * LoCoMo's chats read as high, and as what. Only counts are printed, never the flagged text.
 */
function realText(): string {
  const transcripts = join(SHARED_DATA, 'transcripts');
  if (!existsSync(transcripts)) return `_Real text: skipped, the shared data is not at ${SHARED_DATA}._`;
  const texts: string[] = [];
  for (const name of readdirSync(transcripts)) {
    const raw = readFileSync(join(transcripts, name), 'utf8');
    if (name.endsWith('.jsonl')) for (const line of raw.split('\n')) collectStrings(parseOrUndefined(line), texts);
    else texts.push(...raw.split(/\n\n+/));
  }
  const locomo = join(SHARED_DATA, 'locomo', 'locomo10.json');
  if (existsSync(locomo)) collectStrings(parseOrUndefined(readFileSync(locomo, 'utf8')), texts);
  const kinds = new Map<string, number>();
  let flagged = 0;
  for (const text of texts) {
    const shapes = findHighShapes(text);
    if (shapes.length > 0) flagged++;
    for (const kind of new Set(shapes.map((s) => s.kind))) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const byKind = [...kinds.entries()].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
  return `Real text (shared data: Claude Code and Codex transcripts, LoCoMo chats): ${flagged} of ${texts.length} strings read as high (${byKind}). Unlabelled, so not a rate (when this section was written, the strings flagged were LoCoMo's signed image URLs, whose \`?token=\` is a JWT).`;
}

function parseOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    if (value.length >= 8) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collectStrings(item, out);
  }
}
