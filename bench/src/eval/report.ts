import type { ModeResult } from './loom-run';
import type { ScoreRow, ScoreTable } from './metrics';
import type { EvalFigures, ProviderRun } from './run';

export interface EvalMeta {
  stamp: string;
  startedAt: string;
  finishedAt?: string;
  seconds?: number;
  quick: boolean;
  commit: string;
  node: string;
  cores: number;
  cpu: string;
  memoryGb: number;
  sets: string[];
  providers: string[];
  /** The floor the run set (`--floor`); absent: Loom's own. */
  floor?: number;
}

export interface EvalResult {
  meta: EvalMeta;
  figures: EvalFigures;
}

const f3 = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '–' : v.toFixed(3));

function row(label: string, r: ScoreRow | undefined, extra = ''): string {
  return `| ${label} | ${r?.n ?? '–'} | ${f3(r?.recallAt1)} | ${f3(r?.recallAt5)} | ${f3(r?.recallAt10)} | ${f3(r?.mrr)} |${extra}`;
}

function modeLabel(p: ProviderRun, m: ModeResult): string {
  const ran = m.answeredAs ? Object.entries(m.answeredAs).map(([k, n]) => `${k}${Object.keys(m.answeredAs!).length > 1 ? ` ×${n}` : ''}`).join(', ') : '';
  const mode = m.mode === 'default' ? `default (no \`search_mode\`${ran ? `: ran ${ran}` : ''})` : `\`${m.mode}\`${ran && ran !== m.mode ? ` (ran ${ran})` : ''}`;
  return `${p.provider} · ${mode}`;
}

function tableFor(figures: EvalFigures, setName: string): { rows: Array<{ label: string; table?: ScoreTable; note?: string }>; groups: string[] } {
  const summary = figures.sets.find((s) => s.name === setName)!;
  const rows: Array<{ label: string; table?: ScoreTable; note?: string }> = [{ label: 'BM25 (in-process reference)', table: summary.bm25 }];
  for (const p of figures.providers) {
    if (p.failure) {
      rows.push({ label: `${p.provider}`, note: `failed: ${p.failure.split('\n')[0]!.slice(0, 160)}` });
      continue;
    }
    const run = p.sets.find((s) => s.set === setName);
    for (const m of run?.modes ?? []) {
      if (m.status === 'ok') rows.push({ label: modeLabel(p, m), ...(m.table ? { table: m.table } : {}) });
      else rows.push({ label: `${p.provider} · \`${m.mode}\``, note: m.status === 'failed' ? `failed: ${m.reason}` : 'not available on this build' });
    }
  }
  const groups = Object.keys(summary.bm25).filter((g) => g !== 'overall').sort();
  return { rows, groups };
}

/** Targets of issue 10 that this evaluation measures, with a verdict each. */
function targets(figures: EvalFigures): string[] {
  const out: string[] = [];
  const find = (provider: string, set: string, mode: string): ScoreTable | undefined =>
    figures.providers.find((p) => p.provider === provider)?.sets.find((s) => s.set === set)?.modes.find((m) => m.mode === mode && m.status === 'ok')?.table;
  const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'not measured (mode not available on this build)' : ok ? '**met**' : '**MISSED**');
  // The embedded default provider is `hashed` today; whichever is first in the run is shown if hashed was not run.
  const provider = figures.providers.find((p) => p.provider === 'hashed' && !p.failure)?.provider ?? figures.providers.find((p) => !p.failure)?.provider;
  if (!provider) return ['No provider produced figures.'];
  const locomo = figures.sets.find((s) => s.name === 'locomo');
  if (locomo) {
    const hybrid = find(provider, 'locomo', 'hybrid')?.['overall'];
    const vector = find(provider, 'locomo', 'vector')?.['overall'] ?? find(provider, 'locomo', 'default')?.['overall'];
    const lexical = find(provider, 'locomo', 'lexical')?.['overall'];
    out.push(`| LoCoMo recall@10, hybrid, \`${provider}\` | ≥ 0.650 | ${f3(hybrid?.recallAt10)} | ${verdict(hybrid ? hybrid.recallAt10 >= 0.65 : undefined)} |`);
    out.push(
      `| LoCoMo: hybrid beats each leg (recall@10) | > vector ${f3(vector?.recallAt10)} and > lexical ${f3(lexical?.recallAt10)} | ${f3(hybrid?.recallAt10)} | ${verdict(hybrid && vector && lexical ? hybrid.recallAt10 > vector.recallAt10 && hybrid.recallAt10 > lexical.recallAt10 : undefined)} |`,
    );
  }
  const coding = figures.sets.find((s) => s.name === 'coding');
  if (coding) {
    // 63 turns are a small pool, and BM25 finds every identifier answer in its top 10: recall@10
    // cannot go above it, so "above BM25" is read on MRR (the rank the answer comes at).
    const hybrid = find(provider, 'coding', 'hybrid');
    for (const kind of ['paraphrase', 'identifier']) {
      const h = hybrid?.[kind];
      const b = coding.bm25[kind];
      out.push(`| Coding set, ${kind}: hybrid above BM25 (MRR), \`${provider}\` | > ${f3(b?.mrr)} | ${f3(h?.mrr)} | ${verdict(h && b ? h.mrr > b.mrr : undefined)} |`);
    }
  }
  return ['| Target | Goal | Measured | Verdict |', '|---|---|---|---|', ...out];
}

export function renderMarkdown(result: EvalResult): string {
  const { meta, figures } = result;
  const lines: string[] = [];
  lines.push(`# Retrieval evaluation ${meta.stamp}${meta.quick ? ' (quick)' : ''}`, '');
  lines.push(
    `\`npm run eval\`${meta.quick ? ' -- --quick' : ''} · commit ${meta.commit} · ${meta.cores} cores (${meta.cpu}), ${meta.memoryGb} GB, Node ${meta.node} · ` +
      `${meta.seconds ?? '?'} s · sets ${meta.sets.join(', ')} · providers ${meta.providers.join(', ')} · ` +
      `similarity floor ${meta.floor === undefined ? "Loom's own (see Providers)" : `${meta.floor} (--floor)`}`,
    '',
  );
  lines.push(
    'Every turn goes in through `conversation.append` of an embedded Loom (one per provider) and every question through `conversation.search` ' +
      '(`limit` 10, `namespace_scope: "namespace"`), once per mode. recall@k is the share of a question\'s answer turns in the top k ' +
      '(averaged over questions); MRR is 1/rank of the first answer turn within the top 10. BM25 is the in-process reference over the same turns.',
    '',
  );
  lines.push('## Targets (issue 10)', '', ...targets(figures), '');
  for (const set of figures.sets) {
    const { rows, groups } = tableFor(figures, set.name);
    lines.push(`## ${set.name === 'locomo' ? 'LoCoMo' : 'Coding sessions'}`, '', ...set.notes.map((n) => `- ${n}`), '');
    lines.push('| Provider · mode | n | R@1 | R@5 | R@10 | MRR |', '|---|---|---|---|---|---|');
    for (const r of rows) lines.push(r.table ? row(r.label, r.table['overall']) : `| ${r.label} | ${r.note} | | | | |`);
    lines.push('');
    // An answer in substring mode means the embedder was unavailable: those figures measure the fallback, not the model.
    for (const p of figures.providers) {
      for (const m of p.sets.find((x) => x.set === set.name)?.modes ?? []) {
        const n = m.answeredAs?.['substring'] ?? 0;
        if (n > 0) lines.push(`**Warning:** ${p.provider} · ${m.mode}: ${n} answers came from the substring fallback (the embedder was unavailable).`, '');
      }
    }
    if (groups.length > 0) {
      lines.push(`By ${set.name === 'locomo' ? 'category' : 'kind of question'} (recall@10 / MRR):`, '');
      lines.push(`| Provider · mode | ${groups.map((g) => `${g} (n ${set.bm25[g]?.n ?? 0})`).join(' | ')} |`, `|---|${groups.map(() => '---').join('|')}|`);
      for (const r of rows) {
        if (!r.table) continue;
        lines.push(`| ${r.label} | ${groups.map((g) => `${f3(r.table![g]?.recallAt10)} / ${f3(r.table![g]?.mrr)}`).join(' | ')} |`);
      }
      lines.push('');
    }
  }
  lines.push('## Providers', '');
  lines.push('| Provider | What | Floor | Set | Turns stored | Append turns/s | Append p50 ms | Search p50 / p95 ms (per mode) | Run s |', '|---|---|---|---|---|---|---|---|---|');
  for (const p of figures.providers) {
    if (p.failure) {
      lines.push(`| ${p.provider} | ${p.description} | | | failed: ${p.failure.split('\n')[0]!.slice(0, 200)} | | | | ${p.seconds} |`);
      continue;
    }
    for (const s of p.sets) {
      const lat = s.modes
        .filter((m) => m.status === 'ok' && m.latencyMs)
        .map((m) => `${m.mode} ${m.latencyMs!.p50}/${m.latencyMs!.p95}`)
        .join('; ');
      const notStored = Object.entries(s.ingest.notStored).map(([k, n]) => `${k} ×${n}`).join(', ');
      lines.push(
        `| ${p.provider} | ${p.description} | ${p.floor ?? '?'} | ${s.set} | ${s.ingest.stored}/${s.ingest.turns}${notStored ? ` (${notStored})` : ''} | ${s.ingest.turnsPerSec} | ${s.ingest.appendLatencyMs.p50} | ${lat} | ${p.seconds} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}
