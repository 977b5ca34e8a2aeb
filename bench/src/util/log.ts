const started = Date.now();

function stamp(): string {
  const s = Math.floor((Date.now() - started) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** A progress line: elapsed time since the bench started, then the message. */
export function progress(message: string): void {
  process.stdout.write(`[bench ${stamp()}] ${message}\n`);
}

export function warn(message: string): void {
  process.stdout.write(`[bench ${stamp()}] WARNING: ${message}\n`);
}
