/**
 * Issue 10 (vector speed): Loom's Int8 first stage against sign-bit first stages, timed as
 * statements in chDB, each query running every variant in turn (the machine is shared: compare
 * the rows of one run, not runs). The table is Loom's own, made from its migrations, in a temp
 * directory, holding `--turns N` bench turns (hashed provider), plus a `MATERIALIZED` sign-bit
 * column. Recall is `first-stage-recall.ts`'s job; this measures time only (ADR 0005, amended).
 *
 *   npm run --silent build && node dist/bench/src/eval/first-stage-timing.js [--turns 100000] [--queries 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { HashedEmbeddingProvider } from '@loom/providers';
import { quantize, vectorCandidatesStatement } from '@loom/conversations';
import { createEmbeddingsTable } from '../lab/embeddings-table';
import { timeVariantsInTurn } from '../util/stats';
import { TurnGenerator } from '../workload/text';

const TABLE = 'loom.conversation_embeddings';

/**
 * The sign bits of `v`, 8 dimensions a byte, lowest dimension in the lowest bit. `arraySplit`
 * over `arrayEnumerate` rather than indexing `v` inside a lambda: a lambda that captures the
 * array copies it once per element (5.8 ms a row against 0.09 ms).
 */
const signBits = (v: string): string =>
  `arrayStringConcat(arrayMap(c -> char(arraySum(c)), arraySplit((w, i) -> (i - 1) % 8 = 0,
     arrayMap((x, i) -> if(x > 0, bitShiftLeft(toUInt8(1), (i - 1) % 8), toUInt8(0)), ${v}, arrayEnumerate(${v})), arrayEnumerate(${v}))))`;

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

async function build(session: Session, turns: number): Promise<string> {
  createEmbeddingsTable(session);
  session.query(`ALTER TABLE ${TABLE} ADD COLUMN embedding_bits String MATERIALIZED ${signBits('embedding')} CODEC(NONE)`);
  const provider = new HashedEmbeddingProvider();
  // The search bench's turns (bench/src/parts/search.ts): same seed, 5,000 threads.
  const gen = new TurnGenerator(99);
  for (let from = 0; from < turns; from += 2_000) {
    const lines: string[] = [];
    for (let i = from; i < Math.min(turns, from + 2_000); i += 1) {
      const thread = gen.int(5_000);
      const text = gen.turn(thread % TurnGenerator.topicCount).content;
      const role = gen.next() < 0.5 ? 'user' : 'assistant';
      lines.push(
        JSON.stringify({
          namespace: 'bench',
          thread_id: `s-t${thread}`,
          msg_id: `s-${i}`,
          agent: 'default',
          role,
          run_id: '',
          user_id: '',
          ts: new Date(1_764_000_000_000 + i).toISOString().replace('T', ' ').replace('Z', ''),
          text,
          model: provider.model,
          embedding: provider.embedOne(text),
          embed_error: '',
          created_at: '2026-12-01 00:00:00',
          version: i + 1,
        }),
      );
    }
    await session.insert({ table: TABLE, values: Buffer.from(lines.join('\n')), format: 'JSONEachRow' });
    if ((from / 2_000) % 10 === 0) console.error(`built ${Math.min(turns, from + 2_000)} of ${turns} turns`);
  }
  return provider.model;
}

function bitsHex(v: readonly number[]): string {
  const bytes = Buffer.alloc(Math.ceil(v.length / 8));
  v.forEach((x, i) => {
    if (x > 0) bytes[i >> 3]! |= 1 << (i & 7);
  });
  return bytes.toString('hex');
}

async function main(): Promise<void> {
  const turns = argument('turns', 100_000);
  const queryCount = argument('queries', 30);
  const dir = mkdtempSync(join(tmpdir(), 'loom-first-stage-'));
  const session = new Session(dir);
  try {
    const model = await build(session, turns);
    const conditions = ['namespace IN {namespaces:Array(String)}', "embed_error = ''", 'model = {model:String}'];
    const where = `${conditions.join(' AND ')} AND ((agent = {agent:String}) OR filters_changed)`;
    const outer = `namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, substringUTF8(text, 1, {chars:UInt32}) AS excerpt,
                   1 - cosineDistance(embedding, {q:Array(Float32)}) AS score, deleted, version`;
    const inner = 'namespace, thread_id, msg_id, agent, role, run_id, user_id, ts, text, embedding, deleted, version';
    const hamming = 'bitHammingDistance(embedding_bits, unhex({qb:String}))';
    const variants: Record<string, string> = {
      "Int8 ranking, exact re-score of 40 (Loom's statement)": vectorCandidatesStatement(TABLE, conditions, ['agent = {agent:String}']),
      'sign-bit hamming top 400, exact re-score': `SELECT ${outer} FROM (SELECT ${inner} FROM ${TABLE} WHERE ${where}
         ORDER BY ${hamming} ASC, version DESC LIMIT 400) ORDER BY score DESC, version DESC LIMIT 40`,
      'sign-bit gate (best 2%), then Int8, then exact': `SELECT ${outer} FROM (SELECT ${inner} FROM ${TABLE}
         WHERE ${where} AND ${hamming} <= (SELECT h FROM (SELECT ${hamming} AS h FROM ${TABLE} WHERE ${where} ORDER BY h ASC LIMIT 1 OFFSET {k:UInt32}))
         ORDER BY dotProduct(embedding_q8, {q16:Array(Int16)}) * embedding_scale DESC, version DESC LIMIT 40)`,
    };
    const provider = new HashedEmbeddingProvider();
    const asked = new TurnGenerator(4242);
    const queries = Array.from({ length: queryCount }, (_, i) => provider.embedOne(asked.query(i % TurnGenerator.topicCount)));
    const params = (q: number[]): Record<string, unknown> => ({
      q,
      q16: quantize(q),
      qb: bitsHex(q),
      namespaces: ['bench'],
      model,
      agent: 'default',
      chars: 240,
      candidates: 40,
      k: Math.round(turns * 0.02),
    });
    for (const sql of Object.values(variants)) for (const q of queries.slice(0, 3)) session.queryBind(sql, params(q), 'TSV');
    const timed = Object.fromEntries(Object.entries(variants).map(([name, sql]) => [name, (q: number[]) => void session.queryBind(sql, params(q), 'TSV')]));
    timeVariantsInTurn(queries, timed, `${turns} turns, ${queryCount} queries, variants interleaved`);
  } finally {
    session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
