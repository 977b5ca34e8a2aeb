import { issueUrlBase, setRepository } from './tracker-eval';
import { convertGitbugs, GitbugsProjects, parseCreated, parseCsv, sample } from './tracker-set-gitbugs';

// Shapes of the GitBugs files (a Jira project): a bugs file with quoted multi-line descriptions,
// and a links file listing each duplicate link from both ends, sometimes several ids in one cell.
const bugs = [
  'Summary,Issue id,Status,Priority,Resolution,Created,Resolved,Affects Version/s,Description',
  'Upgrade jetty,100,Resolved,Major,Fixed,13/Jul/21 04:34,,3.3.1,"CVE in jetty 9.4.40, ""upgrade"" it',
  'second line"',
  'Backport jetty upgrade,105,Resolved,Major,Duplicate,07/Dec/21 09:43,,3.2.0,same as the jetty upgrade',
  'Older report closed for a newer one,110,Resolved,Major,Duplicate,01/Jan/22 10:00,,,',
  'Newer report kept,120,Resolved,Major,Fixed,02/Jan/22 10:00,,,',
  'Unrelated S3A failure,130,Open,Major,,03/Jan/22 10:00,,,s3a list fails',
  'Duplicate of an issue outside the file,140,Resolved,Major,Duplicate,04/Jan/22 10:00,,,',
  'Unrelated S3A failure,150,Open,Major,,05/Jan/22 10:00,,,filed twice',
  'Another unrelated one,160,Open,Major,,06/Jan/22 10:00,,,abfs',
].join('\n');
const links = ['Issue id,Duplicate id', '105,100', '100,105', '110,120', '120,110', '140,"999, 998"'].join('\n');

describe('GitBugs tracker-set converter [TRACKER-04]', () => {
  it('parses quoted CSV fields with commas, doubled quotes and newlines', () => {
    expect(parseCsv('a,b\n"x, ""y""\nz",2\r\n3,4\n')).toEqual([
      ['a', 'b'],
      ['x, "y"\nz', '2'],
      ['3', '4'],
    ]);
  });

  it("reads Jira's and Bugzilla's creation times as UTC instants, and refuses others", () => {
    expect(parseCreated('30/Sep/21 17:20').toISOString()).toBe('2021-09-30T17:20:00.000Z');
    expect(parseCreated('2020-01-02 17:14:21+00:00').toISOString()).toBe('2020-01-02T17:14:21.000Z');
    expect(() => parseCreated('yesterday')).toThrow(/unrecognised Created value "yesterday"/);
  });

  it('samples the same issues for the same seed', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect(sample(items, 5, 13)).toEqual(sample(items, 5, 13));
    expect(sample(items, 5, 13)).not.toEqual(sample(items, 5, 14));
    expect(sample(items, 80, 13)).toHaveLength(50);
  });

  it('pairs a later issue resolved as a duplicate with its linked older issue; the rest is pool, excluded or unlinked', () => {
    const set = convertGitbugs(GitbugsProjects['hadoop']!, bugs, links, { maxBody: 20, seed: 1, origin: 'test' });
    expect(set.pairs).toEqual([{ issue: '105', duplicate_of: '100' }]);
    expect(set.evidence).toEqual({ '105 -> 100': 'tracker duplicate link between the two; #105 resolved Duplicate' });
    // 110/120: the older one was closed for the newer (no older issue to find); 140 points outside
    // the file; 150 repeats 130's title word for word (filed twice): none of them is unlinked.
    expect(set.unlinked).toEqual(['130', '160']);
    expect(set.excluded['older issue resolved as the duplicate']).toMatch(/^1 links/);
    expect(set.excluded['other end outside the file']).toMatch(/^2 links/);
    expect(set.excluded['same title as an earlier issue, no recorded link']).toMatch(/^1 issues/);
    expect(set.held_out).toMatchObject({ pairs: ['105'], unlinked: ['130', '160'] });
    expect(set.issues.map((i) => i.number)).toEqual([100, 105, 110, 120, 130, 140, 150, 160]);
    const first = set.issues[0]!;
    expect(first).toEqual({ number: 100, url: 'https://issues.apache.org/jira/secure/ViewIssue.jspa?id=100', title: 'Upgrade jetty', body: 'CVE in jetty 9.4.40,', opened: '2021-07-13' });
    expect(setRepository(set)).toBe('Apache Jira: Hadoop (GitBugs)');
    expect(`${issueUrlBase(set)}100`).toBe(first.url);
    expect(issueUrlBase({ source: 'https://github.com/rust-lang/rust/issues' })).toBe('https://github.com/rust-lang/rust/issues/');
  });

  it('samples the unlinked issues when asked, with the sample named in about', () => {
    const set = convertGitbugs(GitbugsProjects['hadoop']!, bugs, links, { maxBody: 100, seed: 1, unlinked: 1, origin: 'test' });
    expect(set.unlinked).toHaveLength(1);
    expect(['130', '160']).toContain(set.unlinked[0]);
    expect(set.about).toContain('a seeded sample (seed 1) of 1 of the 2 issues');
  });
});
