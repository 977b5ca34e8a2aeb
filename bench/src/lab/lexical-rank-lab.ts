/**
 * Kept-postings ranking lab (issue 10, ADR 0044): builds one namespace's copy in memory from the
 * bench's own generated turns (same seeds, threads and tokenizer as the search part's load, no
 * engine), then times the in-process BM25 ranking alone on the bench's queries, so a change to
 * `rank` is compared with the one before it on the same postings. Prints p50/p95/max and a
 * fingerprint of every answer (ids, matched terms, scores to 1e-6 as the API shows them): a
 * faster ranking must print the same one. Run it at two commits to compare them.
 *
 *   node dist/bench/src/lab/lexical-rank-lab.js <turns> [limit] [agent]
 */
import { createHash } from 'node:crypto';
import { Corpus, lexicalColumns, queryTerms, rank, type SourceRow } from '@loom/conversations';
import { TurnGenerator } from '../workload/text';
import { summarize } from '../util/stats';

const THREADS = 5_000;

function build(turns: number): Corpus {
  const gen = new TurnGenerator(99);
  const corpus = new Corpus('bench-search', Date.now(), 10_000_000);
  const started = Date.now();
  let page: SourceRow[] = [];
  for (let seq = 0; seq < turns; seq += 1) {
    const t = gen.int(THREADS);
    const turn = gen.turn(t % TurnGenerator.topicCount);
    const role = gen.next() < 0.5 ? 'user' : 'assistant';
    const lex = lexicalColumns(turn.content);
    page.push({ namespace: 'bench-search', thread_id: `s-t${t}`, msg_id: `s-${seq}`, doc_len: lex.lex_len, agent: 'default', role, run_id: '', user_id: 'u', ts: '2026-12-08 00:00:00.000000', deleted: 0, v: String(seq + 1), terms: lex.lex_terms, tfs: lex.lex_tfs });
    if (page.length === 5_000) {
      corpus.apply(page, Date.now() * 1000);
      page = [];
    }
    if ((seq + 1) % 100_000 === 0) console.log(`  ${seq + 1}/${turns} turns in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  corpus.apply(page, Date.now() * 1000);
  return corpus;
}

function main(): void {
  const turns = Number(process.argv[2] ?? 100_000);
  const limit = Number(process.argv[3] ?? 100);
  const agent = process.argv[4];
  const corpus = build(turns);
  console.log(`copy: ${corpus.slots.size} turns, ${corpus.terms.size} terms, ${corpus.postings} postings`);
  const gen = new TurnGenerator(4242);
  const queries = Array.from({ length: 200 }, (_, i) => gen.query(i % TurnGenerator.topicCount));
  const bm25 = { k1: 1.2, b: 0.5 };
  const filters = agent ? { agent } : {};
  const rounds = process.env['LAB_ROUNDS'] ? Number(process.env['LAB_ROUNDS']) : 3;
  for (let round = 0; round < rounds; round += 1) {
    const ms: number[] = [];
    const hash = createHash('sha256');
    let slowest = { ms: 0, query: '' };
    for (const query of queries) {
      const terms = queryTerms(query);
      const t0 = process.hrtime.bigint();
      const rows = rank([corpus], terms, filters, limit, bm25, undefined);
      const took = Number(process.hrtime.bigint() - t0) / 1e6;
      ms.push(took);
      if (took > slowest.ms) slowest = { ms: took, query };
      hash.update(JSON.stringify(rows.map((r) => [r.msg_id, Math.round(r.score * 1e6) / 1e6, [...r.matched].sort()])));
    }
    const s = summarize(ms);
    console.log(`round ${round}: p50 ${s.p50.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, max ${s.max.toFixed(2)} ms (slowest: "${slowest.query}"); answers ${hash.digest('hex').slice(0, 16)}`);
  }
}

main();
