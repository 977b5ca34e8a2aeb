import { planCompaction, promptCost, type WindowTurn, type WindowOptions } from './compaction-window';

const options: WindowOptions = { keepRecent: 10, minToCompact: 4, promptChars: 24_000, summaryAllowanceChars: 8_000 };

let clock = 0;
function turn(id: string, extra: Partial<WindowTurn> = {}): WindowTurn {
  clock += 1;
  return {
    msg_id: id,
    ts: `2026-11-29 10:00:${String(clock).padStart(2, '0')}.000000`,
    role: 'user',
    content: `plain turn ${id}`,
    is_high: false,
    is_summary: false,
    is_saved: false,
    compacted_from: [],
    ...extra,
  };
}
const turns = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => turn(`${prefix}${i}`));
const ids = (ts: WindowTurn[]) => ts.map((t) => t.msg_id);

describe('planCompaction', () => {
  beforeEach(() => (clock = 0));

  it('CONV-COMPACT-02: the last keep_recent turns (default 10) are never in the window', () => {
    const thread = turns(16);
    const plan = planCompaction(thread, options);
    expect(plan.kind).toBe('compact');
    if (plan.kind !== 'compact') return;
    expect(ids(plan.retire)).toEqual(ids(thread.slice(0, 6)));
    expect(plan.retire.some((t) => ids(thread.slice(6)).includes(t.msg_id))).toBe(false);
  });

  it('CONV-COMPACT-03: only as many of the oldest turns as fit the prompt budget are summarised; the rest wait, in order', () => {
    const big = (id: string) => turn(id, { content: 'x'.repeat(1_000) });
    const thread = [...Array.from({ length: 8 }, (_, i) => big(`b${i}`)), ...turns(10, 'tail')];
    const plan = planCompaction(thread, { ...options, minToCompact: 2, promptChars: 3 * promptCost(thread[0]!) + 5 });
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.summarized)).toEqual(['b0', 'b1', 'b2']);
  });

  it('CONV-COMPACT-03: a first turn alone over the whole budget is still read, so the thread can move', () => {
    const thread = [turn('huge', { content: 'y'.repeat(50_000) }), ...turns(4, 'next'), ...turns(10, 'tail')];
    const plan = planCompaction(thread, { ...options, minToCompact: 1 });
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.summarized)).toEqual(['huge']);
  });

  it('CONV-COMPACT-07: fewer than min_to_compact (default 4) new turns: below-min, nothing to call the LLM for', () => {
    expect(planCompaction(turns(13), options)).toEqual({ kind: 'below-min', newTurns: 3 });
    expect(planCompaction(turns(14), options).kind).toBe('compact');
    expect(planCompaction(turns(5), options)).toEqual({ kind: 'below-min', newTurns: 0 });
  });

  it('CONV-COMPACT-08: earlier summaries count neither toward min_to_compact nor messages_summarized', () => {
    const summary = turn('s0', { role: 'system', is_summary: true, content: 'earlier summary', compacted_from: ['gone1', 'gone2'] });
    const thread = [summary, ...turns(3), ...turns(10, 'tail')];
    expect(planCompaction(thread, options)).toEqual({ kind: 'below-min', newTurns: 3 });
    const more = [summary, ...turns(4), ...turns(10, 'tail')];
    const plan = planCompaction(more, options);
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.summarized)).toEqual(['t0', 't1', 't2', 't3']);
    expect(ids(plan.folded)).toEqual(['s0']);
  });

  it('CONV-COMPACT-09: leading summaries fold in from their own allowance; one that does not fit what is left stays live', () => {
    const s1 = turn('s1', { role: 'system', is_summary: true, content: 'a'.repeat(5_000), compacted_from: ['gone1'] });
    const s2 = turn('s2', { role: 'system', is_summary: true, content: 'b'.repeat(5_000), compacted_from: ['gone2'] });
    const thread = [s1, s2, ...turns(4), ...turns(10, 'tail')];
    const plan = planCompaction(thread, options);
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.folded)).toEqual(['s1']);
    expect(ids(plan.retire)).not.toContain('s2');
    // Folding does not spend the turns' budget.
    expect(ids(plan.body)).toEqual(['t0', 't1', 't2', 't3']);
  });

  it('CONV-COMPACT-10: a summary a failed run left (its turns all live, in the window, at the first one\'s ts) is replaced unread', () => {
    const window = turns(5);
    const leftover = { ...turn('s-left', { role: 'system', is_summary: true, content: 'half-done', compacted_from: ['t0', 't1', 't2'] }), ts: window[0]!.ts };
    const thread = [window[0]!, leftover, ...window.slice(1), ...turns(10, 'tail')];
    const plan = planCompaction(thread, options);
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.replacedUnread)).toEqual(['s-left']);
    expect(ids(plan.body)).not.toContain('s-left');
    expect(ids(plan.folded)).toEqual([]);
    expect(ids(plan.retire)).toContain('s-left');
  });

  it('CONV-COMPACT-11: a summary further into the window takes prompt budget like a turn and is replaced with the turns around it', () => {
    const inner = turn('s-mid', { role: 'system', is_summary: true, content: 'z'.repeat(400), compacted_from: ['long-gone'] });
    const head = turns(2, 'a');
    const thread = [...head, inner, ...turns(2, 'b'), ...turns(10, 'tail')];
    const plan = planCompaction(thread, options);
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.body)).toEqual(['a0', 'a1', 's-mid', 'b0', 'b1']);
    expect(ids(plan.summarized)).toEqual(['a0', 'a1', 'b0', 'b1']);
    const tight = planCompaction(thread, { ...options, minToCompact: 2, promptChars: 2 * promptCost(head[0]!) + 10 });
    if (tight.kind !== 'compact') throw new Error(tight.kind);
    expect(ids(tight.body)).toEqual(['a0', 'a1']);
  });

  it('CONV-COMPACT-12, CONV-COMPACT-13: high and saved turns are left out of the window and stay live', () => {
    const thread = [
      ...turns(2, 'a'),
      turn('high', { is_high: true, content: 'my PIN is 4821' }),
      turn('saved', { is_saved: true }),
      // Judged again: a detector that learned a shape since the append still keeps it out.
      turn('high-now', { content: 'the staging password=Hunter2Staging!' }),
      ...turns(2, 'b'),
      ...turns(10, 'tail'),
    ];
    const plan = planCompaction(thread, options);
    if (plan.kind !== 'compact') throw new Error(plan.kind);
    expect(ids(plan.retire)).toEqual(['a0', 'a1', 'b0', 'b1']);
  });

  it('CONV-COMPACT-16: a window holding only saved or high turns is nothing-to-compact', () => {
    const thread = [turn('saved', { is_saved: true }), turn('high', { is_high: true }), turn('saved2', { is_saved: true }), turn('high2', { is_high: true }), ...turns(10, 'tail')];
    expect(planCompaction(thread, options)).toEqual({ kind: 'nothing-to-compact' });
  });
});
