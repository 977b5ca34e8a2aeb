import { tombstoneTurn } from './storage-inspection';
import type { TestLoom } from './embedded-loom';

/** Draws from a fixed-seed LCG: a failing run repeats. Returns an integer in [0, n). */
export type Draw = (n: number) => number;

/** The words generated turns and queries are made of. */
const WORDS = ['ledger', 'refund', 'ingress', 'deadlock', 'upload', 'eviction', 'pelican', 'timeout', 'websocket', 'index', 'retry', 'billing'];

/**
 * Generated writes to one namespace, for tests that compare a kept copy with the engine after
 * every write: appends (some in runs), re-sends of stored turns, tombstones, thread deletes and
 * compaction, in proportions drawn from `seed`. After each write, half the time, `check` runs
 * with the same generator (to draw a search) and the step; returns how many checks ran.
 */
export async function runGeneratedWrites(
  loom: TestLoom,
  namespace: string,
  options: { seed: number; steps: number; check: (draw: Draw, sentence: () => string, step: number) => Promise<void> },
): Promise<number> {
  let state = options.seed;
  const draw: Draw = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    // The high bits: an LCG's low bits repeat with a short period.
    return Math.floor((state / 2147483648) * n);
  };
  const sentence = () => Array.from({ length: 3 + draw(6) }, () => WORDS[draw(WORDS.length)]).join(' ');
  const ok = (op: string, body: Record<string, unknown>) => loom.admin.ok(op, { namespace, ...body });
  const appended: Array<{ thread: string; msg: string }> = [];
  let checks = 0;
  for (let step = 0; step < options.steps; step += 1) {
    const roll = draw(100);
    if (roll < 60 || appended.length < 8) {
      const turn = { thread: `g${draw(6)}`, msg: `s${step}` };
      await ok('conversation.append', { thread_id: turn.thread, msg_id: turn.msg, role: draw(2) ? 'user' : 'assistant', content: sentence(), ...(draw(3) === 0 ? { run_id: `run-${draw(2)}` } : {}) });
      appended.push(turn);
    } else if (roll < 70) {
      // A re-send of a stored turn: stored once, nothing new to rank.
      const again = appended[draw(appended.length)]!;
      await ok('conversation.append', { thread_id: again.thread, msg_id: again.msg, role: 'user', content: 'a re-send is ignored' });
    } else if (roll < 82) {
      const gone = appended[draw(appended.length)]!;
      await tombstoneTurn(loom.gateway.runtime.storage, { namespace, thread_id: gone.thread, msg_id: gone.msg }, loom.gateway.runtime.plane.fence);
    } else if (roll < 90) {
      // A thread with nothing left answers 404 (nothing is written): either is fine here.
      const thread = `g${draw(6)}`;
      const deleted = await loom.admin.call('conversation.delete', { namespace, thread_id: thread, confirm_thread_id: thread });
      if (![200, 404].includes(deleted.status)) throw new Error(`conversation.delete answered ${deleted.status}`);
    } else {
      await loom.admin.call('conversation.compact', { namespace, thread_id: `g${draw(6)}`, keep_recent: 1 });
    }
    if (draw(2) === 0) continue;
    await options.check(draw, sentence, step);
    checks += 1;
  }
  return checks;
}
