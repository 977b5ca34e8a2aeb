import { queryTerms, tokenize } from '@loom/conversations';
import { leafOf } from '../symbols/header-symbol';
import { bm25, type ChangeCorpus, type ChangeDoc } from './change-corpus';
import type { DiffSummary } from './diff-summary';

export interface Ranked {
  doc: ChangeDoc;
  score: number;
  reasons: string[];
  terms: string[];
  files: string[];
  symbols: string[];
}

/** Weights of the duplicate check's signals; renormalised over the signals a request gives. */
const DUPLICATE_WEIGHTS = { text: 0.55, files: 0.25, symbols: 0.1, code: 0.1 };

/**
 * The earlier changes that did what a proposed one does: BM25 of its title and description over
 * their messages, the files both change (Jaccard) and the symbols both touch. Every candidate
 * says why it is there.
 */
export function rankDuplicates(corpus: ChangeCorpus, candidates: readonly ChangeDoc[], query: { text: string; diff: DiffSummary | undefined }): Ranked[] {
  const terms = queryTerms(query.text);
  const diffFiles = new Set(query.diff?.files ?? []);
  const diffLeaves = new Set((query.diff?.symbols ?? []).map(leafOf));
  const diffTerms = new Set(tokenize(query.diff?.text ?? '').filter((t) => t.length >= 3 && !/^\d+$/.test(t)).slice(0, 600));
  const weights = {
    text: terms.length > 0 ? DUPLICATE_WEIGHTS.text : 0,
    files: diffFiles.size > 0 ? DUPLICATE_WEIGHTS.files : 0,
    symbols: diffLeaves.size > 0 ? DUPLICATE_WEIGHTS.symbols : 0,
    code: diffTerms.size > 0 ? DUPLICATE_WEIGHTS.code : 0,
  };
  const total = weights.text + weights.files + weights.symbols + weights.code || 1;
  const text = candidates.map((doc) => bm25(corpus, doc, terms));
  const best = Math.max(0, ...text.map((t) => t.score)) || 1;
  const out: Ranked[] = [];
  candidates.forEach((doc, i) => {
    const t = text[i] as { score: number; matched: string[] };
    const files = doc.files.filter((f) => diffFiles.has(f));
    const union = new Set([...doc.files, ...diffFiles]).size || 1;
    const symbols = doc.symbols.filter((s) => diffLeaves.has(leafOf(s)));
    const symbolShare = diffLeaves.size === 0 ? 0 : new Set(symbols.map(leafOf)).size / diffLeaves.size;
    const codeShare = diffTerms.size === 0 ? 0 : [...diffTerms].filter((term) => doc.codeTerms.has(term)).length / diffTerms.size;
    const score = (weights.text * (t.score / best) + weights.files * (files.length / union) + weights.symbols * symbolShare + weights.code * codeShare) / total;
    if (score <= 0) return;
    const reasons: string[] = [];
    if (t.matched.length > 0) reasons.push(`its message shares ${quoteList(t.matched)}`);
    if (files.length > 0) reasons.push(`it changed the same file${files.length > 1 ? 's' : ''}: ${shortList(files)}`);
    if (symbols.length > 0) reasons.push(`it touched the same symbol${symbols.length > 1 ? 's' : ''}: ${shortList(symbols)}`);
    out.push({ doc, score, reasons, terms: t.matched, files, symbols });
  });
  return out.sort((a, b) => b.score - a.score || b.doc.seq - a.doc.seq);
}

export interface BisectHints {
  paths: string[];
  symbols: string[];
}

const BISECT_WEIGHTS = { message: 0.3, code: 0.3, area: 0.3, hints: 0.25, size: 0.05 };
/** Earlier changes whose messages best match the description, whose files make up its area. */
const AREA_SOURCES = 20;
/** A change of more files than this says little about where a feature lives. */
const AREA_MAX_FILES = 20;

/**
 * Where the description's subject lives in the code: the files of the earlier changes whose
 * messages best match it (BM25 over every change up to the range's end: the fix a regression
 * undoes, the feature's own PRs), each weighted by its match and spread over the change's files.
 * Suspected paths the caller did not give, read from the history itself. 0..1 by file.
 */
function descriptionArea(corpus: ChangeCorpus, upto: number, terms: readonly string[]): Map<string, { weight: number; because: ChangeDoc }> {
  const area = new Map<string, { weight: number; because: ChangeDoc }>();
  if (terms.length === 0) return area;
  const scored = corpus.docs
    .filter((d) => d.seq <= upto && d.files.length > 0 && d.files.length <= AREA_MAX_FILES)
    .map((doc) => ({ doc, score: bm25(corpus, doc, terms).score }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, AREA_SOURCES);
  const best = scored[0]?.score ?? 1;
  for (const { doc, score } of scored) {
    const weight = score / best / Math.sqrt(doc.files.length);
    for (const file of doc.files) {
      const had = area.get(file);
      if (!had || had.weight < weight) area.set(file, { weight, because: doc });
    }
  }
  const top = Math.max(0, ...[...area.values()].map((a) => a.weight)) || 1;
  for (const a of area.values()) a.weight /= top;
  return area;
}

/**
 * The commits of a range most likely to have brought a regression in: the description's words
 * in their messages (BM25) and in the paths and symbols they changed (IDF-weighted share),
 * the paths and symbols the caller suspects, and a small prior for bigger changes.
 */
export function rankBisect(corpus: ChangeCorpus, range: readonly ChangeDoc[], description: string, hints: BisectHints): Ranked[] {
  const terms = queryTerms(description);
  // What each change touched in words: its paths, its symbols and the terms of its changed lines.
  const codeTerms = range.map((doc) => new Set([...tokenize(`${doc.files.join(' ')} ${doc.symbols.join(' ')}`), ...doc.codeTerms]));
  const codeIdf = new Map(terms.map((term) => [term, Math.log(1 + (range.length + 0.5) / (codeTerms.filter((s) => s.has(term)).length + 0.5))]));
  const idfTotal = [...codeIdf.values()].reduce((a, b) => a + b, 0) || 1;
  const message = range.map((doc) => bm25(corpus, doc, terms));
  const bestMessage = Math.max(0, ...message.map((m) => m.score)) || 1;
  const bestSize = Math.max(1, ...range.map((d) => Math.log1p(d.additions + d.deletions)));
  const hinted = hints.paths.length + hints.symbols.length > 0;
  const weights = { ...BISECT_WEIGHTS, hints: hinted ? BISECT_WEIGHTS.hints : 0 };
  const total = weights.message + weights.code + weights.area + weights.hints + weights.size;
  const hintLeaves = new Set(hints.symbols.map(leafOf));
  const area = descriptionArea(corpus, Math.max(...range.map((d) => d.seq)), terms);
  return range
    .map((doc, i): Ranked => {
      const m = message[i] as { score: number; matched: string[] };
      const inCode = terms.filter((term) => (codeTerms[i] as Set<string>).has(term));
      const codeScore = inCode.reduce((n, term) => n + (codeIdf.get(term) ?? 0), 0) / idfTotal;
      const files = doc.files.filter((f) => hints.paths.some((p) => f === p || f.startsWith(p.endsWith('/') ? p : `${p}/`)));
      const symbols = doc.symbols.filter((s) => hintLeaves.has(leafOf(s)));
      const hintScore = hinted ? (Number(files.length > 0) * hints.paths.length + new Set(symbols.map(leafOf)).size) / (hints.paths.length + hintLeaves.size) : 0;
      const size = Math.log1p(doc.additions + doc.deletions) / bestSize;
      const inArea = doc.files.map((f) => ({ file: f, ...(area.get(f) ?? { weight: 0, because: undefined }) })).sort((a, b) => b.weight - a.weight)[0];
      const areaScore = inArea?.because && inArea.because.sha !== doc.sha ? inArea.weight : 0;
      const score = (weights.message * (m.score / bestMessage) + weights.code * codeScore + weights.area * areaScore + weights.hints * hintScore + weights.size * size) / total;
      const reasons: string[] = [];
      if (files.length > 0) reasons.push(`changed ${shortList(files)} (under a path you named)`);
      if (symbols.length > 0) reasons.push(`changed ${shortList(symbols)} (a symbol you named)`);
      if (inCode.length > 0) reasons.push(`its files, symbols or changed lines mention ${quoteList(inCode)}`);
      if (m.matched.length > 0) reasons.push(`its message mentions ${quoteList(m.matched)}`);
      if (areaScore > 0 && inArea?.because) reasons.push(`changed ${inArea.file}, which ${inArea.because.sha.slice(0, 10)} ("${inArea.because.subject.slice(0, 80)}") also changed`);
      reasons.push(`+${doc.additions} -${doc.deletions} lines in ${doc.files.length} file${doc.files.length === 1 ? '' : 's'}`);
      return { doc, score, reasons, terms: [...new Set([...m.matched, ...inCode])], files, symbols };
    })
    .sort((a, b) => b.score - a.score || b.doc.seq - a.doc.seq);
}

function quoteList(items: readonly string[]): string {
  return shortList(items.map((i) => `"${i}"`));
}

function shortList(items: readonly string[]): string {
  return items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`;
}
