import { stepBack } from './line-walk';

describe('stepBack [issue 13: line history] PRHIST-03', () => {
  it('a line below an insertion moves up by the lines inserted', () => {
    expect(stepBack([{ old_start: 2, old_lines: 0, new_start: 3, new_lines: 2 }], 10)).toEqual({ kind: 'moved', oldLine: 8 });
  });
  it('a line inside an added-only hunk was born in that commit', () => {
    expect(stepBack([{ old_start: 2, old_lines: 0, new_start: 3, new_lines: 2 }], 4)).toEqual({ kind: 'changed', origin: true, oldLine: undefined });
  });
  it('a line inside a replacing hunk follows the old line at the same offset', () => {
    expect(stepBack([{ old_start: 5, old_lines: 2, new_start: 5, new_lines: 3 }], 6)).toEqual({ kind: 'changed', origin: false, oldLine: 6 });
    expect(stepBack([{ old_start: 5, old_lines: 2, new_start: 5, new_lines: 3 }], 7)).toEqual({ kind: 'changed', origin: false, oldLine: 6 });
  });
  it('a removal above the line moves it down; a removal below leaves it', () => {
    expect(stepBack([{ old_start: 3, old_lines: 4, new_start: 2, new_lines: 0 }], 5)).toEqual({ kind: 'moved', oldLine: 9 });
    expect(stepBack([{ old_start: 3, old_lines: 4, new_start: 2, new_lines: 0 }], 2)).toEqual({ kind: 'moved', oldLine: 2 });
  });
});
