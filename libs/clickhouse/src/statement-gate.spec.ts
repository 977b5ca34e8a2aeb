import { StatementGate } from './statement-gate';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ADR 0042: on an engine that runs one statement at a time, background reads let searches go first. */
describe('StatementGate [ADR 0042]', () => {
  it('a background statement waits while another runs, and starts once the engine has been quiet for quietMs', async () => {
    const gate = new StatementGate({ quietMs: 30, maxWaitMs: 5_000 });
    const order: string[] = [];
    const search = gate.foreground(async () => {
      await sleep(60);
      order.push('search');
    });
    await sleep(5);
    const page = gate.background(async () => void order.push('page'));
    await search;
    const ended = performance.now();
    await page;
    expect(order).toEqual(['search', 'page']);
    expect(performance.now() - ended).toBeGreaterThanOrEqual(25);
  });

  it('a background statement starts at once on a quiet engine', async () => {
    const gate = new StatementGate({ quietMs: 30, maxWaitMs: 5_000 });
    const begun = performance.now();
    await gate.background(async () => undefined);
    expect(performance.now() - begun).toBeLessThan(1_000);
  });

  it('under a steady stream of statements a background one still starts after maxWaitMs', async () => {
    const gate = new StatementGate({ quietMs: 50, maxWaitMs: 150 });
    let streaming = true;
    const stream = (async () => {
      while (streaming) await gate.foreground(() => sleep(10));
    })();
    const begun = performance.now();
    await gate.background(async () => undefined);
    const waited = performance.now() - begun;
    streaming = false;
    await stream;
    expect(waited).toBeGreaterThanOrEqual(140);
  });

  it('two background statements never run together: the second waits for the first and a quiet moment', async () => {
    const gate = new StatementGate({ quietMs: 20, maxWaitMs: 5_000 });
    let running = 0;
    let most = 0;
    const page = () =>
      gate.background(async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(30);
        running -= 1;
      });
    await Promise.all([page(), page(), page()]);
    expect(most).toBe(1);
  });
});
