import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A small tmpfs mounted at `dir` (root, and a kernel that allows it): the real "no space left on
 * device", for the engine's files and the write-ahead log alike. `{ refused }` with the reason
 * where mounting is not allowed.
 */
export function mountSmallFilesystem(dir: string, sizeMb: number): { unmount: () => void } | { refused: string } {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { refused: stderr || (error instanceof Error ? error.message : String(error)) };
  }
  return {
    unmount: () => {
      // Lazy: a process that still holds a file there does not keep the mount from going.
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    },
  };
}

/** Fills the file system holding `dir` with one file until the kernel answers ENOSPC; returns its path and size. */
export function fillFilesystem(dir: string): { path: string; bytes: number } {
  const path = join(dir, 'reliability-filler.bin');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1 << 20, 0x5a);
  let bytes = 0;
  try {
    // Bounded: a tmpfs of a few hundred MiB fills long before this.
    for (let i = 0; i < 64 * 1024; i += 1) bytes += writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
    // What is left is smaller than a chunk: take it too, byte-sized pieces at the end.
    for (const size of [65_536, 4_096, 512, 1]) {
      try {
        for (let i = 0; i < 1 << 20; i += 1) bytes += writeSync(fd, chunk, 0, size);
      } catch {
        /* the next smaller size */
      }
    }
  } finally {
    closeSync(fd);
  }
  return { path, bytes };
}

/**
 * A failing writer where no small file system can be mounted: a `--require` preload for the Loom
 * child that makes every write(2) to a file whose path contains `pathPart` (the write-ahead log)
 * fail with ENOSPC while the flag file exists. It fails only Node's writes, not the engine's own.
 */
export class FailingWriter {
  readonly preload: string;
  readonly flag: string;

  constructor(dir: string, pathPart: string) {
    mkdirSync(dir, { recursive: true });
    this.preload = join(dir, 'fail-writes.preload.js');
    this.flag = join(dir, 'fail-writes.flag');
    writeFileSync(this.preload, preloadSource(this.flag, pathPart));
  }

  /** Node flags for the child. */
  nodeArgs(): string[] {
    return ['--require', this.preload];
  }

  fail(): void {
    writeFileSync(this.flag, 'ENOSPC');
  }

  heal(): void {
    rmSync(this.flag, { force: true });
  }

  get failing(): boolean {
    return existsSync(this.flag);
  }
}

function preloadSource(flag: string, pathPart: string): string {
  return `'use strict';
// Written by the reliability harness: makes writes to files under ${JSON.stringify(pathPart)} fail with ENOSPC while ${JSON.stringify(flag)} exists.
const fs = require('fs');
const flag = ${JSON.stringify(flag)};
const part = ${JSON.stringify(pathPart)};
const watched = new Set();
const openSync = fs.openSync;
fs.openSync = function (path, ...rest) {
  const fd = openSync.call(this, path, ...rest);
  if (String(path).includes(part)) watched.add(fd);
  return fd;
};
const closeSync = fs.closeSync;
fs.closeSync = function (fd, ...rest) {
  watched.delete(fd);
  return closeSync.call(this, fd, ...rest);
};
const writeSync = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (watched.has(fd) && fs.existsSync(flag)) {
    const error = new Error('ENOSPC: no space left on device, write');
    error.code = 'ENOSPC';
    error.errno = -28;
    error.syscall = 'write';
    throw error;
  }
  return writeSync.call(this, fd, ...rest);
};
`;
}
