import { createServer, connect, type Socket } from 'node:net';

export interface LatencyProxy {
  url: string;
  port: number;
  /** Delay added to every chunk, both ways (ms). */
  setDelay(ms: number): void;
  /** While stalled, chunks are held (not dropped) until `stall(false)`: an engine that stops answering. */
  stall(on: boolean): void;
  /** Chunks forwarded so far. */
  chunks(): number;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a storage endpoint that makes it slow: every chunk, either
 * way, waits `delayMs` before it is passed on, in order. Nothing is dropped or reordered.
 */
export async function startLatencyProxy(target: { host: string; port: number }, delayMs: number): Promise<LatencyProxy> {
  let delay = delayMs;
  let stalled = false;
  let stallWaiters: Array<() => void> = [];
  let forwarded = 0;
  const sockets = new Set<Socket>();

  const pipe = (from: Socket, to: Socket): void => {
    // One chain per direction keeps the order of the chunks.
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      from.pause();
      chain = chain.then(async () => {
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        while (stalled) await new Promise<void>((r) => stallWaiters.push(r));
        forwarded += 1;
        if (!to.destroyed) to.write(chunk);
        from.resume();
      });
    });
    from.on('end', () => {
      chain = chain.then(() => {
        to.end();
      });
    });
  };

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setDelay: (ms) => {
      delay = ms;
    },
    stall: (on) => {
      stalled = on;
      if (!on) for (const wake of stallWaiters.splice(0)) wake();
    },
    chunks: () => forwarded,
    close: async () => {
      stalled = false;
      for (const wake of stallWaiters.splice(0)) wake();
      stallWaiters = [];
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
