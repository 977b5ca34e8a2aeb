import { tablesFor } from '../tables';
import { appendFedTables, readSeesAppends } from './append-visibility';

describe('which reads wait for the write-behind flush', () => {
  const tables = tablesFor('loom');
  const sees = readSeesAppends(tables);

  it('CONV-APPEND-06: a read of the transcript, the embeddings or a table their views feed waits for every acknowledged append', () => {
    for (const table of appendFedTables(tables)) {
      expect(sees(`SELECT count() FROM ${table} FINAL WHERE namespace = {ns:String}`)).toBe(true);
      // Inside a subquery, a join or a CTE, in any case.
      expect(sees(`SELECT t.x FROM ${tables.conversationThreads} AS t JOIN (SELECT thread_id FROM ${table}) USING thread_id`)).toBe(true);
      expect(sees(`with a AS (select 1 from ${table.toUpperCase()}) SELECT * FROM a`)).toBe(true);
    }
    expect([...appendFedTables(tables)].sort()).toEqual(
      ['loom.conversation_embeddings', 'loom.conversation_terms', 'loom.conversations', 'loom.saved_docs', 'loom.saved_terms'],
    );
  });

  it('CONV-APPEND-06: so does a read of the engine\'s system tables (parts, merges), and every statement that is not a plain SELECT', () => {
    expect(sees(`SELECT count() FROM system.parts WHERE database = {db:String} AND table = 'conversations'`)).toBe(true);
    expect(sees(`SHOW TABLES FROM loom`)).toBe(true);
    expect(sees(`DROP DATABASE IF EXISTS loom`)).toBe(true);
    expect(sees(`OPTIMIZE TABLE ${tables.settings} FINAL`)).toBe(true);
  });

  it('CONV-APPEND-06: a plain read of tables written directly (the recording switch, settings, tokens) does not wait', () => {
    expect(sees(`SELECT conversation_logging_enabled AS enabled FROM ${tables.namespaces} FINAL WHERE namespace = {ns:String} LIMIT 1`)).toBe(false);
    expect(sees(`SELECT key, value FROM ${tables.settings} FINAL`)).toBe(false);
    expect(sees(`  select * from ${tables.apiTokens} where token_hash = {h:String}`)).toBe(false);
    // A name counts whole: another table that begins with an append-path name is not one.
    expect(sees(`SELECT * FROM ${tables.conversationThreads}`)).toBe(false);
    expect(sees(`SELECT * FROM loom.conversations_archive`)).toBe(false);
  });
});
