import { cpuPer, readThreadCpu } from './thread-cpu';

describe('CPU per turn by thread group (bench append, issue 10)', () => {
  it('reads this process: its JavaScript thread counts as the gateway thread, and work done on it shows there', () => {
    const before = readThreadCpu(process.pid);
    // A process without /proc (not Linux) gives no reading rather than a wrong one.
    if (process.platform !== 'linux') return expect(before).toBeUndefined();
    expect(before).toBeDefined();
    let x = 0;
    const until = process.cpuUsage().user + 300_000;
    while (process.cpuUsage().user < until) x += Math.sqrt(x + 1);
    const after = readThreadCpu(process.pid)!;
    expect(x).toBeGreaterThan(0);
    // 300 ms of user time on this thread, read in 10 ms ticks.
    expect(after.gateway - before!.gateway).toBeGreaterThanOrEqual(200);
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
