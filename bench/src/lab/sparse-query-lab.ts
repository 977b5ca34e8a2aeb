/**
 * Issue 10 (vector speed at 1M): a hashed query vector is sparse (30-70 of 384 dimensions are
 * non-zero), so its Int8 dot product with a turn only needs the turn's values at those
 * dimensions. With one Int8 column per dimension, the first stage reads those columns only: the
 * same Int8 ranking (identical scores), a fraction of the bytes. This lab times that against
 * Loom's statement, statements run directly in chDB, each query running every variant in turn.
 *
 *   npm run --silent build && node dist/bench/src/lab/sparse-query-lab.js [--turns 100000] [--queries 30] [--dir D (kept)]
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { HashedEmbeddingProvider } from '@loom/providers';
import { quantize, vectorCandidatesStatement } from '@loom/conversations';
import { createEmbeddingsTable } from './embeddings-table';
import { summarize, timeVariantsInTurn } from '../util/stats';
import { TurnGenerator } from '../workload/text';

const TABLE = 'loom.conversation_embeddings';
const DIMS = 384;

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}

async function build(session: Session, turns: number, layout: string): Promise<void> {
  createEmbeddingsTable(session);
  if (layout === 'columns') {
    const cols = Array.from({ length: DIMS }, (_, i) => `ADD COLUMN d${i} Int8 MATERIALIZED embedding_q8[${i + 1}] CODEC(NONE)`);
    session.query(`ALTER TABLE ${TABLE} ${cols.join(', ')}`);
  }
  const provider = new HashedEmbeddingProvider();
  const gen = new TurnGenerator(99);
  const started = Date.now();
  for (let from = 0; from < turns; from += 5_000) {
    const lines: string[] = [];
    for (let i = from; i < Math.min(turns, from + 5_000); i += 1) {
      const thread = gen.int(Math.max(5_000, turns / 20));
      const text = gen.turn(thread % TurnGenerator.topicCount).content;
      const role = gen.next() < 0.5 ? 'user' : 'assistant';
      lines.push(
        JSON.stringify({
          namespace: 'bench', thread_id: `s-t${thread}`, msg_id: `s-${i}`, agent: 'default', role, run_id: '', user_id: '',
          ts: new Date(1_764_000_000_000 + i).toISOString().replace('T', ' ').replace('Z', ''),
          text, model: provider.model, embedding: provider.embedOne(text), embed_error: '', created_at: '2026-12-01 00:00:00', version: i + 1,
        }),
      );
    }
    await session.insert({ table: TABLE, values: Buffer.from(lines.join('\n')), format: 'JSONEachRow' });
    if ((from / 5_000) % 20 === 0) console.error(`built ${Math.min(turns, from + 5_000)} of ${turns} turns (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  console.error(`insert ${turns} turns: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  session.query(`OPTIMIZE TABLE ${TABLE} FINAL`);
  console.error(`optimized: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  const turns = Number(argument('turns', '100000'));
  const queryCount = Number(argument('queries', '30'));
  const layout = argument('layout', 'columns');
  const dir = argument('dir', join(tmpdir(), `loom-sparse-${turns}`));
  const fresh = !existsSync(join(dir, 'built'));
  mkdirSync(dir, { recursive: true });
  const session = new Session(join(dir, 'db'));
  if (fresh) {
    await build(session, turns, layout);
    mkdirSync(join(dir, 'built'));
  }
  const provider = new HashedEmbeddingProvider();
  const model = provider.model;
  const conditions = ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'];
  const where = `${conditions.join(' AND ')} AND ((agent = {agent:String}) OR filters_changed)`;
  const outer = `namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, substringUTF8(text, 1, {chars:UInt32}) AS excerpt,
                 1 - cosineDistance(embedding, {q:Array(Float32)}) AS score, deleted, version`;
  const inner = 'namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, embedding, deleted, version';
  const asked = new TurnGenerator(4242);
  const queries = Array.from({ length: queryCount }, (_, i) => provider.embedOne(asked.query(i % TurnGenerator.topicCount)));
  const nz = queries.map((q) => q.filter((x) => x !== 0).length);
  console.log(`query non-zero dims: ${summarize(nz).p50} median, ${Math.max(...nz)} max`);
  // The sparse statement: one product per non-zero query dimension, the weights as parameters.
  const sparse = (q16: number[], mode: string): { sql: string; params: Record<string, unknown> } => {
    const dims = q16.flatMap((w, i) => (w !== 0 ? [i] : []));
    const params: Record<string, unknown> = {};
    let expr: string;
    if (mode === 'sum') {
      expr = dims.map((i) => `d${i} * {w${i}:Int16}`).join(' + ');
      for (const i of dims) params[`w${i}`] = q16[i];
    } else {
      expr = `dotProduct([${dims.map((i) => `d${i}`).join(', ')}], {qs:Array(Int16)})`;
      params['qs'] = dims.map((i) => q16[i]);
    }
    return {
      sql: `SELECT ${outer} FROM (SELECT ${inner} FROM ${TABLE} WHERE ${where}
            ORDER BY (${expr || '0'}) * embedding_scale DESC, version DESC LIMIT {candidates:UInt32})`,
      params,
    };
  };
  const variants: Record<string, (q: number[]) => { sql: string; params: Record<string, unknown> }> = {
    "Loom's statement (Int8 array, exact re-score)": () => ({ sql: vectorCandidatesStatement(TABLE, conditions, ['agent = {agent:String}']), params: {} }),
  };
  if (layout === 'columns') {
    variants['sparse columns, sum of products'] = (q) => sparse(quantize(q), 'sum');
    variants['sparse columns, dotProduct of an array'] = (q) => sparse(quantize(q), 'array');
  }
  const base = (q: number[]): Record<string, unknown> => ({ q, q16: quantize(q), namespaces: ['bench'], model, agent: 'default', chars: 240, candidates: Number(argument('candidates', '40')) });
  const key = (tsv: string): string => tsv.split('\n').map((l) => l.split('\t').slice(0, 3).join('/')).sort().join(',');
  let agree = 0;
  for (const q of queries) {
    const answers = Object.values(variants).map((v) => {
      const { sql, params } = v(q);
      return key(session.queryBind(sql, { ...base(q), ...params }, 'TSV'));
    });
    if (answers.every((a) => a === answers[0])) agree += 1;
  }
  console.log(`same candidates in every variant: ${agree} of ${queries.length}`);
  const timed = Object.fromEntries(
    Object.entries(variants).map(([name, v]) => [name, (q: number[]) => {
      const { sql, params } = v(q);
      session.queryBind(sql, { ...base(q), ...params }, 'TSV');
    }]),
  );
  timeVariantsInTurn(queries, timed, `${turns} turns, ${queryCount} queries, variants interleaved`);
  session.close();
}

void main();
