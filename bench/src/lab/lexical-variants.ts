/** Variants of the lexical statement that ADR 0027 measured against the current one (hybrid-lab.ts `statements`). */
const w = `{idf:Array(Array(Float64))}[ni][indexOf({terms:Array(String)}, term)] * tf * ({k1:Float64} + 1)
                / (tf + {k1:Float64} * (1 - {b:Float64} + {b:Float64} * doc_len / {avgdl:Array(Float64)}[ni]))`;
const topK = (t: string, k: number, final = 'FINAL') => () => `SELECT namespace, thread_id, msg_id, sum(w) AS score, groupArray(term) AS matched FROM (
      SELECT namespace, term, thread_id, msg_id, if(ni = 0, 0, ${w}) AS w FROM (
        SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent, indexOf({stat_ns:Array(String)}, namespace) AS ni FROM ${t} ${final}
        WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} AND deleted = 0) WHERE agent = {agent:String}
      ORDER BY w DESC LIMIT ${k} BY namespace, term)
    GROUP BY namespace, thread_id, msg_id ORDER BY score DESC LIMIT {limit:UInt32}`;
export const lexicalVariants = (t: string): Record<string, () => string> => ({
  // No FINAL: each posting's latest version by argMax over the few columns the filters and score need.
  argMax: () => `SELECT namespace, thread_id, msg_id, sum(${w}) AS score, groupArray(term) AS matched FROM (
      SELECT namespace, term, thread_id, msg_id, indexOf({stat_ns:Array(String)}, namespace) AS ni, l.1 AS tf, l.2 AS doc_len, l.3 AS deleted, l.4 AS agent
      FROM (SELECT namespace, term, thread_id, msg_id, argMax((tf, doc_len, deleted, agent, role, run_id), version) AS l
            FROM ${t} WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} GROUP BY namespace, term, thread_id, msg_id)
      WHERE deleted = 0 AND agent = {agent:String})
    GROUP BY namespace, thread_id, msg_id ORDER BY score DESC LIMIT {limit:UInt32}`,
  // FINAL, but only the columns the score and filter need (details read after the LIMIT).
  finalNarrow: () => `SELECT namespace, thread_id, msg_id, sum(${w}) AS score, groupArray(term) AS matched FROM (
      SELECT namespace, term, thread_id, msg_id, tf, doc_len, indexOf({stat_ns:Array(String)}, namespace) AS ni FROM (
        SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent FROM ${t} FINAL
        WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} AND deleted = 0) WHERE agent = {agent:String})
    GROUP BY namespace, thread_id, msg_id ORDER BY score DESC LIMIT {limit:UInt32}`,
  top500: topK(t, 500),
  top1000: topK(t, 1000),
  top2000: topK(t, 2000),
  hashKey: () => `SELECT any(namespace) AS namespace, any(thread_id) AS thread_id, any(msg_id) AS msg_id, sum(w) AS score, groupArray(term) AS matched FROM (
      SELECT namespace, term, thread_id, msg_id, cityHash64(namespace, thread_id, msg_id) AS h, if(ni = 0, 0, ${w}) AS w FROM (
        SELECT namespace, term, thread_id, msg_id, tf, doc_len, agent, indexOf({stat_ns:Array(String)}, namespace) AS ni FROM ${t} FINAL
        WHERE namespace IN {namespaces:Array(String)} AND term IN {terms:Array(String)} AND deleted = 0) WHERE agent = {agent:String})
    GROUP BY h ORDER BY score DESC LIMIT {limit:UInt32}`,
});
