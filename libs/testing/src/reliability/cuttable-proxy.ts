import { createServer, connect, type Server, type Socket } from 'node:net';

export interface CuttableProxy {
  url: string;
  port: number;
  /** Refuses connections and drops the open ones, as an endpoint that stopped does. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of an endpoint that can be taken away and given back: while cut,
 * the port refuses connections and every open one is dropped; restored, it forwards again on the
 * same port, so the processes configured with its URL need no change.
 */
export async function startCuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : port;
  };
  const cut = async (): Promise<void> => {
    const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    for (const s of sockets) s.destroy();
    sockets.clear();
    await closing;
    server = undefined;
  };
  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    cut,
    restore: listen,
    close: cut,
  };
}
