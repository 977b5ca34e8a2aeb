import { analyzeStatement, tokenize } from './sql-scan';

describe('analyzeStatement', () => {
  it('classifies statements and finds the trailing FORMAT clause', () => {
    const s = analyzeStatement("SELECT format, 'FORMAT x' FROM t WHERE a = 1 \nFORMAT JSONEachRow");
    expect(s.kind).toBe('SELECT');
    expect(s.format?.name).toBe('JSONEachRow');
    expect(s.settingsAfterFormat).toBe(false);
    expect(s.multiStatement).toBe(false);
  });

  it('does not mistake a column or alias named format for the clause', () => {
    expect(analyzeStatement('SELECT x AS format FROM t').format).toBeUndefined();
    expect(analyzeStatement('SELECT format FROM t').format).toBeUndefined();
    expect(analyzeStatement('SELECT t.format FROM t').format).toBeUndefined();
    expect(analyzeStatement('SELECT 1 FORMAT TSV SETTINGS max_threads = 1')).toMatchObject({ format: { name: 'TSV' }, settingsAfterFormat: true });
  });

  it('treats a parenthesised query and WITH as the SELECT family', () => {
    expect(analyzeStatement('(SELECT 1) UNION ALL (SELECT 2)').kind).toBe('SELECT');
    expect(analyzeStatement('  -- note\n WITH 1 AS x SELECT x').kind).toBe('WITH');
  });

  it('detects multiple statements but allows a trailing semicolon and comments', () => {
    expect(analyzeStatement('SELECT 1;').multiStatement).toBe(false);
    expect(analyzeStatement('SELECT 1; -- done\n').multiStatement).toBe(false);
    expect(analyzeStatement('SELECT 1;;').multiStatement).toBe(false);
    expect(analyzeStatement('SELECT 1; SELECT 2').multiStatement).toBe(true);
    expect(analyzeStatement("SELECT ';', `a;b`, \"c;d\" /* ; */ -- ;\n").multiStatement).toBe(false);
    expect(analyzeStatement('SELECT 1 /* outer /* nested */ still comment; */').multiStatement).toBe(false);
    expect(analyzeStatement("SELECT 'it''s; \\' ;' AS x").multiStatement).toBe(false);
    expect(analyzeStatement('SELECT $$a;b$$, $tag$c;d$tag$').multiStatement).toBe(false);
  });

  it('strips the trailing semicolon and comments from the statement text', () => {
    expect(analyzeStatement('SELECT 1 ; -- bye').statement).toBe('SELECT 1');
    expect(analyzeStatement('SELECT 1 -- trailing').statement).toBe('SELECT 1');
  });

  it('collects declared parameter types, including nested parentheses and quotes', () => {
    const s = analyzeStatement("SELECT {a:String}, {b: Array(Tuple(String, UInt8))}, {c:DateTime64(3, 'UTC')}, '{d:String}', {a:UInt8}");
    expect([...s.paramTypes]).toEqual([
      ['a', 'String'],
      ['b', 'Array(Tuple(String, UInt8))'],
      ['c', "DateTime64(3, 'UTC')"],
    ]);
  });

  it('describes INSERT headers and stops scanning where the data starts', () => {
    const data = '{"s":"a;b"}\n{"s":"x"}; SELECT 2';
    const s = analyzeStatement(`INSERT INTO db.t (a, b) FORMAT JSONEachRow\n${data}`);
    expect(s.kind).toBe('INSERT');
    expect(s.multiStatement).toBe(false);
    expect(s.insert).toMatchObject({ table: 'db.t', columns: ['a', 'b'], format: 'JSONEachRow', complexColumns: false });
    expect(s.insert?.source?.text).toBe('FORMAT');
    expect(`INSERT INTO db.t (a, b) FORMAT JSONEachRow\n${data}`.slice(s.insert!.dataStart!).trim()).toBe(data);
  });

  it('is not fooled by tables called values or format', () => {
    expect(analyzeStatement('INSERT INTO db.values FORMAT CSV').insert).toMatchObject({ table: 'db.values', format: 'CSV' });
    expect(analyzeStatement('INSERT INTO `format` VALUES (1)').insert).toMatchObject({ table: '`format`' });
    expect(analyzeStatement('INSERT INTO `format` VALUES (1)').insert?.source?.text).toBe('VALUES');
  });

  it('recognises INSERT ... SELECT, existing SETTINGS and non-plain column lists', () => {
    const sel = analyzeStatement("INSERT INTO t SELECT * FROM values('x UInt8', 1); DROP TABLE t");
    expect(sel.insert?.source?.text).toBe('SELECT');
    expect(sel.insert?.dataStart).toBeUndefined();
    // INSERT ... SELECT has no inline rows, so a second statement is detected as for any query.
    expect(sel.multiStatement).toBe(true);
    expect(analyzeStatement('INSERT INTO t SELECT 1;')).toMatchObject({ multiStatement: false, statement: 'INSERT INTO t SELECT 1' });
    expect(analyzeStatement('INSERT INTO t SETTINGS async_insert = 1 FORMAT JSONEachRow').insert?.settingsKeyword?.text).toBe('SETTINGS');
    expect(analyzeStatement('INSERT INTO t (* EXCEPT (a)) FORMAT JSONEachRow').insert?.complexColumns).toBe(true);
    expect(analyzeStatement('INSERT INTO TABLE FUNCTION s3(\'x\') FORMAT CSV').insert).toBeDefined();
  });

  it('gives CREATE TEMPORARY as the second word', () => {
    expect(analyzeStatement('create temporary table x (a UInt8)')).toMatchObject({ kind: 'CREATE', secondWord: 'TEMPORARY' });
  });
});

describe('tokenize', () => {
  it('tracks bracket depth', () => {
    const { tokens } = tokenize('f(a, [b]) ; c');
    expect(tokens.map((t) => [t.text, t.depth])).toEqual([
      ['f', 0], ['(', 0], ['a', 1], [',', 1], ['[', 1], ['b', 2], [']', 1], [')', 0], [';', 0], ['c', 0],
    ]);
  });

  it('treats "# " as a comment but not a bare #', () => {
    expect(tokenize('SELECT 1 # ; comment\n').tokens.map((t) => t.text)).toEqual(['SELECT', '1']);
    expect(tokenize('SELECT a#b').tokens.map((t) => t.text)).toEqual(['SELECT', 'a', '#', 'b']);
  });
});
