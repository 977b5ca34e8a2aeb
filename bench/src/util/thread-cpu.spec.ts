import { readFileSync } from 'node:fs';
import { cpuPer, readThreadCpu } from './thread-cpu';

describe('CPU per turn by thread group (bench append, issue 10)', () => {
  it('reads this process: its JavaScript thread counts as the gateway thread, and work done on it shows there', () => {
    const before = readThreadCpu(process.pid);
    // A process without /proc (not Linux) gives no reading rather than a wrong one.
    if (process.platform !== 'linux') return expect(before).toBeUndefined();
    expect(before).toBeDefined();
    // Spin until this thread itself (read through /proc/thread-self, which does not depend on the
    // grouping under test) has used 300 ms. process.cpuUsage() counts every thread of the process,
    // and in a jest worker other threads (GC, an engine another suite loaded) take part of it.
    const own = (): number => {
      const stat = readFileSync('/proc/thread-self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    };
    const start = own();
    const deadline = Date.now() + 4_000;
    let x = 0;
    while (own() - start < 300 && Date.now() < deadline) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
    const spent = own() - start;
    const after = readThreadCpu(process.pid)!;
    expect(x).toBeGreaterThan(0);
    expect(spent).toBeGreaterThanOrEqual(300);
    // All of it shows as the gateway thread's (read after, so at least as much).
    expect(after.gateway - before!.gateway).toBeGreaterThanOrEqual(spent);
  });

  it('gives no reading for a process that is not there', () => {
    expect(readThreadCpu(2 ** 22 + 1)).toBeUndefined();
    expect(readThreadCpu(undefined)).toBeUndefined();
  });

  it('divides each group by the turns, and never goes below zero for a thread that ended', () => {
    const per = cpuPer({ gateway: 100, helpers: 50, engine: 200, merges: 40 }, { gateway: 1100, helpers: 30, engine: 1200, merges: 540 }, 1000);
    expect(per).toEqual({ gateway: 1, helpers: 0, engine: 1, merges: 0.5 });
    expect(cpuPer({ gateway: 0, helpers: 0, engine: 0, merges: 0 }, { gateway: 5, helpers: 0, engine: 0, merges: 0 }, 0).gateway).toBeNaN();
  });
});
