import { evidenceOf, testGlobsOf } from './evidence';
import { DefaultRankerOptions, rankDuplicates, templateFactor } from './ranker';

const day = 86_400_000;

describe('duplicate ranker [TRACKER-03]', () => {
  const older = [
    { id: '1', title: 'Logical error: Not-ready Set is passed', body: "Code: 49. DB::Exception: Not-ready Set is passed as the second argument for function 'in'. (LOGICAL_ERROR)" },
    { id: '2', title: 'Segfault in MergeTreeData::loadDataParts on startup', body: 'SIGSEGV while loading parts. DB::MergeTreeData::loadDataParts' },
    { id: '3', title: 'Typo on the JSON functions documentation page', body: 'JSONExtractString takes two arguments' },
    { id: '4', title: 'Logical error: Inconsistent table names', body: 'Code: 49. (LOGICAL_ERROR) DB::InterpreterSelectQuery' },
  ];

  it('TRACKER-03: ranks the older issue with the same error and words first, scores in 0..1, shared evidence named', () => {
    const ranked = rankDuplicates({ title: 'Not-ready Set is passed in IN subquery', body: 'Code: 49. DB::Exception: Not-ready Set is passed (LOGICAL_ERROR)' }, older);
    expect(ranked.map((r) => r.id)).toEqual(['1', '4', '2', '3']);
    for (const r of ranked) expect(r.score >= 0 && r.score <= 1).toBe(true);
    expect(ranked[0]!.score).toBeGreaterThan(0.5);
    expect(ranked[0]!.shared).toEqual(expect.arrayContaining(['Code: 49', 'logical_error']));
    expect(ranked[3]!.score).toBe(0);
  });

  it('TRACKER-03: a query whose distinctive words no older issue has scores low even when its one common word matches', () => {
    const ranked = rankDuplicates({ title: 'Segfault in AggregateFunctionTopK' }, older);
    expect(ranked[0]!.id).toBe('2');
    expect(ranked[0]!.score).toBeLessThan(0.3);
  });

  it('TRACKER-03: code-aware tokens match a stack symbol written in prose and in a trace', () => {
    const ranked = rankDuplicates({ title: 'Crash at startup', body: 'frame: DB::MergeTreeData::loadDataParts' }, older);
    expect(ranked[0]!.id).toBe('2');
    expect(ranked[0]!.shared).toContain('db::mergetreedata::loaddataparts');
  });

  it('TRACKER-03: of two equally similar older issues the one opened shortly before ranks first', () => {
    const now = Date.UTC(2026, 0, 1);
    const twins = [
      { id: 'old', title: 'Test 01234_foo is flaky', body: 'timeout', openedAt: now - 400 * day },
      { id: 'recent', title: 'Test 01234_foo is flaky', body: 'timeout', openedAt: now - 3 * day },
    ];
    expect(rankDuplicates({ title: 'Test 01234_foo is flaky', body: 'timeout', openedAt: now }, twins).map((r) => r.id)).toEqual(['recent', 'old']);
  });

  it('TRACKER-03: an umbrella issue naming a test glob shares the evidence of any test of that family', () => {
    expect(testGlobsOf('Tests `03008_deduplication_*` are flaky')).toEqual(['03008_deduplication_']);
    expect(evidenceOf('Flaky test 03008_deduplication_mv_generates_several_blocks')).toContain('test:03008_deduplication_mv_generates_several_blocks');
    const ranked = rankDuplicates({ title: 'Flaky test 03008_deduplication_mv_replicated' }, [
      { id: 'umbrella', title: 'Tests `03008_deduplication_*` are flaky', body: '' },
      { id: 'other', title: 'Flaky test 02999_other_case', body: '' },
    ]);
    expect(ranked[0]).toMatchObject({ id: 'umbrella', shared: ['03008_deduplication_mv_replicated'] });
  });

  it('TRACKER-03: a title many older issues share (a template) lowers the scores but not the order; a title one older issue shares changes nothing', () => {
    const title = '[tool_crash] FileSystemException: Cannot open file, errno = 2';
    const crashes = [
      { id: 'pub', title, body: 'Command: flutter pub get. at _DefaultPub.get pub.dart readAsStringSync' },
      { id: 'pods', title, body: 'Command: flutter pub get. at CocoaPods.setupPodfile cocoapods.dart copySync' },
      { id: 'run', title, body: 'Command: flutter run. at FlutterCommand.verifyThenRunCommand' },
      { id: 'doc', title: 'Typo on the install page', body: 'the word flutter is misspelt' },
    ];
    const query = { title, body: 'Command: flutter pub get. at CocoaPods.setupPodfile cocoapods.dart' };
    const templated = rankDuplicates(query, crashes);
    const plain = rankDuplicates(query, crashes, { ...DefaultRankerOptions, templatePenalty: 0 });
    expect(templated.map((r) => r.id)).toEqual(plain.map((r) => r.id));
    expect(templated[0]!.id).toBe('pods');
    // Three older issues share the title: every score is divided by 1 + ln 3.
    expect(templated[0]!.score).toBeCloseTo(plain[0]!.score / (1 + Math.log(3)), 3);
    expect(templated[0]!.score).toBeLessThan(0.5);
    expect(plain[0]!.score).toBeGreaterThan(0.5);

    const once = [crashes[1]!, crashes[3]!];
    expect(rankDuplicates(query, once)).toEqual(rankDuplicates(query, once, { ...DefaultRankerOptions, templatePenalty: 0 }));
    expect(templateFactor(title, [title, 'Typo on the install page'], 0.6, 1)).toBe(1);
    expect(templateFactor(title, [title, `${title} (again)`, 'Typo'], 0.6, 1)).toBeCloseTo(1 / (1 + Math.log(2)), 6);
  });

  it("TRACKER-03: the new issue's body weighs in its query: an older issue that shares only the title scores lower than at body weight 1, and one that shares the body too ranks first", () => {
    const query = { title: 'Terminal renders garbled text', body: 'after git commit the vim editor output is disordered on windows' };
    const pool = [
      { id: 'title', title: 'Terminal renders garbled text', body: 'fonts on a retina display' },
      { id: 'both', title: 'Terminal text garbled', body: 'vim opened by git commit is disordered on windows' },
      { id: 'other', title: 'Settings sync fails', body: 'login loop' },
    ];
    const ranked = rankDuplicates(query, pool);
    const bodyOne = rankDuplicates(query, pool, { ...DefaultRankerOptions, queryBodyWeight: 1 });
    expect(DefaultRankerOptions.queryBodyWeight).toBe(2);
    expect(ranked[0]!.id).toBe('both');
    const titleOnly = (r: typeof ranked) => r.find((x) => x.id === 'title')!.score;
    expect(titleOnly(ranked)).toBeLessThan(titleOnly(bodyOne));
  });

  it('no candidates, no ranking; evidence ignores URLs and generic exception names', () => {
    expect(rankDuplicates({ title: 'x' }, [])).toEqual([]);
    expect([...evidenceOf('see https://x.io/LOGICAL_ERROR and DB::Exception, STID: 2508-48e6')]).toEqual(['stid:2508-48e6']);
  });

});
