import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedLoomChild, metricValue, type AppendLedger, type OpCall, type PresenceCount } from '@loom/testing/reliability';
import { LoomClient } from '../util/http';
import { runtimeDistDir, runtimeEnv } from '../util/paths';

/** A work directory for one section, removed by `done()`. */
export function sectionDir(id: string): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `loom-reliability-${id}-`));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export function cliPath(): string {
  return join(runtimeDistDir(), 'apps', 'cli', 'src', 'main.js');
}

/** Embedded `loom up` on `dataDir`, the hashed embedder, no titler (no model calls in these runs). */
export function embeddedLoom(dataDir: string, options: { nodeArgs?: string[]; env?: Record<string, string> } = {}): EmbeddedLoomChild {
  return new EmbeddedLoomChild({
    cli: cliPath(),
    dataDir,
    token: 'reliability-admin-' + randomBytes(12).toString('hex'),
    nodeArgs: options.nodeArgs ?? [],
    env: { ...runtimeEnv(), LOOM_EMBEDDINGS_PROVIDER: 'hashed', LOOM_CONVERSATION_TITLER_ENABLED: 'false', ...options.env },
    watch: /"level":(50|60)|replayed the write-ahead log/,
  });
}

export function clientFor(loom: { url: string; token: string }): LoomClient {
  return new LoomClient(loom.url, loom.token, 64);
}

export function opCall(client: LoomClient): OpCall {
  return (op, body, timeoutMs) => client.call(op, body, timeoutMs);
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export const n0 = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
export const n1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');

/** Answers by kind, most frequent first: `200 stored: 812, 503 unavailable: 40`. */
export function outcomesLine(ledger: AppendLedger): string {
  const entries = Object.entries(ledger.outcomes).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? 'none sent' : entries.map(([k, v]) => `${k}: ${n0(v)}`).join(', ');
}

/** The nothing-lost-nothing-doubled verdict of a presence count. */
export function verdict(count: PresenceCount): string {
  if (count.lost === 0 && count.duplicated === 0 && count.strangers === 0) return 'nothing lost, nothing doubled';
  const parts = [];
  if (count.lost > 0) parts.push(`**${count.lost} acknowledged turn(s) LOST** (e.g. ${count.lostIds.slice(0, 5).join(', ')})`);
  if (count.duplicated > 0) parts.push(`**${count.duplicated} msg_id(s) DOUBLED** (e.g. ${count.duplicatedIds.slice(0, 5).join(', ')})`);
  if (count.strangers > 0) parts.push(`**${count.strangers} row(s) never sent**`);
  return parts.join('; ');
}

/** `quarantined`: rows moved aside by the write path (`loom_write_quarantined_total`); undefined where the build has no such metric. */
export function presenceRow(label: string, count: PresenceCount, quarantined: number | undefined): Array<string | number> {
  return [label, n0(count.acknowledged), n0(count.present), n0(count.lost), n0(count.duplicated), n0(count.storedWithoutAck), quarantined === undefined ? '0 (no metric)' : n0(quarantined), verdict(count)];
}

export const PRESENCE_HEADER = ['When', 'Acknowledged', 'Present', 'Lost', 'Duplicated', 'Stored, answer cut off', 'Quarantined', 'Verdict'];

/** `loom_write_quarantined_total` of a Loom process (its /metrics; 0 while declared with no sample), or undefined if this build does not count quarantined rows. */
export async function quarantinedRows(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return metricValue(await response.text(), 'loom_write_quarantined_total');
  } catch {
    return undefined;
  }
}

/** A note under a presence table when the build counts no quarantined rows. */
export const NO_QUARANTINE_NOTE = '"0 (no metric)": this build has no `loom_write_quarantined_total` (no quarantine of poison rows), so a row the engine refused would hold up the write path rather than be counted here.';

/**
 * A broken invariant (something acknowledged was lost or doubled): the section fails, and the
 * error carries the figures, so the document shows them under FAILED.
 */
export function failIfBroken(body: string, counts: PresenceCount[]): string {
  if (counts.every((c) => c.lost === 0 && c.duplicated === 0 && c.strangers === 0)) return body;
  throw new Error(`an acknowledged write was lost or doubled:\n\n${body}`);
}

/** RSS and heap of a Loom process from its /metrics, MiB. */
export async function memorySample(metricsText: () => Promise<string>): Promise<{ rssMb: number; heapMb: number } | undefined> {
  try {
    const text = await metricsText();
    const rss = metricValue(text, 'process_resident_memory_bytes');
    const heap = metricValue(text, 'nodejs_heap_size_used_bytes');
    if (rss === undefined || heap === undefined) return undefined;
    return { rssMb: rss / 2 ** 20, heapMb: heap / 2 ** 20 };
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
