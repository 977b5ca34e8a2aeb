import { takeWithinBudget } from './page-budget';

describe('takeWithinBudget [issue 9: pages with a byte budget]', () => {
  it('takes rows while they fit together, and always the first', () => {
    expect(takeWithinBudget([1, 2, 3], 10)).toBe(3);
    expect(takeWithinBudget([4, 4, 4], 10)).toBe(2);
    expect(takeWithinBudget([40, 1], 10)).toBe(1);
    expect(takeWithinBudget([10, 0], 10)).toBe(2);
    expect(takeWithinBudget([], 10)).toBe(0);
  });
});
