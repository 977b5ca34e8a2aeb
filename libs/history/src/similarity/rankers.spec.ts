import { termFrequencies } from '@loom/conversations';
import type { ChangeCorpus, ChangeDoc } from './change-corpus';
import { rankBisect } from './rankers';

function corpusOf(changes: { subject: string; files: string[]; lines?: number }[]): ChangeCorpus {
  const df = new Map<string, number>();
  const docs = changes.map((c, i): ChangeDoc => {
    const { tf, length } = termFrequencies(c.subject);
    for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    return { sha: `${i}`.padStart(40, '0'), seq: i + 1, pr_number: 0, pr_title: null, state: 'merged', subject: c.subject, body: '', author: 'a', committed_at: '2026-01-01T00:00:00.000Z', files: c.files, symbols: [], additions: c.lines ?? 10, deletions: 0, codeTerms: new Set(), tf, length };
  });
  return { docs, pulls: [], bySha: new Map(docs.map((d) => [d.sha, d])), df, averageLength: docs.reduce((n, d) => n + d.length, 0) / docs.length };
}

describe('rankBisect [issue 13: better bisect] PRHIST-03', () => {
  it('PRHIST-03: a change with a neutral message in the files where the described feature was fixed before ranks above same-size changes elsewhere, saying which earlier change places it there', () => {
    const corpus = corpusOf([
      { subject: 'Fix keep-alive socket reuse after idle timeout (#10)', files: ['src/connection/socket_pool.ts', 'src/connection/agent.ts'] },
      { subject: 'Update docs', files: ['docs/a.md'] },
      { subject: 'Update src/utils', files: ['src/utils/format.ts'] },
      { subject: 'Update src/connection', files: ['src/connection/socket_pool.ts'] },
      { subject: 'Update src/data', files: ['src/data/rows.ts'] },
      { subject: 'Bump dependencies', files: ['package.json'] },
    ]);
    const range = corpus.docs.slice(1);
    const ranked = rankBisect(corpus, range, 'keep-alive socket reuse after idle timeout', { paths: [], symbols: [] });
    expect(ranked[0]?.doc.subject).toBe('Update src/connection');
    expect(ranked[0]?.reasons.join(' ')).toContain('changed src/connection/socket_pool.ts, which 0000000000 ("Fix keep-alive socket reuse after idle timeout (#10)") also changed');
  });
});
