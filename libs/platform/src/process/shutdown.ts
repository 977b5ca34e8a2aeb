/** Closes cleanly on SIGINT/SIGTERM, once; a second signal exits at once. */
export function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (closing) process.exit(1);
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while stopping on ${signal}: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
