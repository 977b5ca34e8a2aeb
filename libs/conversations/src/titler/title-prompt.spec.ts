import { cleanTitle, TITLE_MAX_CHARS, titleRequest } from './title-prompt';

describe('title prompt', () => {
  it('sends each opening turn, cut to 1,000 characters, with a short answer budget', () => {
    const request = titleRequest([
      { role: 'user', content: 'x'.repeat(5_000) },
      { role: 'assistant', content: 'Sure.' },
    ]);
    expect(request.maxTokens).toBe(32);
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0]!.content).toContain(`user: ${'x'.repeat(1_000)}\n`);
    expect(request.messages[0]!.content).not.toContain('x'.repeat(1_001));
    expect(request.messages[0]!.content).toContain('assistant: Sure.');
  });

  it.each([
    ['Fix the flaky ledger export test', 'Fix the flaky ledger export test'],
    ['"Fix the flaky ledger export test."', 'Fix the flaky ledger export test'],
    ['Title: Ledger migration plan', 'Ledger migration plan'],
    ['**Title:** Ledger migration plan\nBecause the user asked…', 'Ledger migration plan'],
    ['\n\n  Moving   invoices  \n', 'Moving invoices'],
    ['', ''],
    ['   ', ''],
  ])('cleans %j to %j', (answer, title) => {
    expect(cleanTitle(answer)).toBe(title);
  });

  it(`cuts a long answer at a word boundary within ${TITLE_MAX_CHARS} characters`, () => {
    const title = cleanTitle('word '.repeat(40));
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect(title.endsWith('word')).toBe(true);
  });
});
