import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms) one process's threads used, grouped by what they do. */
export interface ThreadCpu {
  /** The JavaScript thread: HTTP, validation, the detector, embedding (hashed), the log write. */
  gateway: number;
  /** libuv's pool and V8's helpers: the pool threads also run each chDB call until the engine takes it. */
  helpers: number;
  /** chDB's own threads that are not merges: parsing inserts, the postings view, queries. */
  engine: number;
  /** chDB's background merges (MergeMutate threads). */
  merges: number;
}

/** /proc counts CPU time in ticks of USER_HZ, which Linux fixes at 100 a second. */
const TICK_MS = 10;

/** Reads the CPU time of every thread of `pid` (Linux /proc); undefined where there is no /proc. */
export function readThreadCpu(pid: number | undefined): ThreadCpu | undefined {
  if (pid === undefined) return undefined;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const out: ThreadCpu = { gateway: 0, helpers: 0, engine: 0, merges: 0 };
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // The command name is in parentheses and may hold spaces; the fields after it are fixed.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
    if (tid === String(pid)) out.gateway += ms;
    else if (name === 'node' || name.startsWith('V8 ') || name.startsWith('libuv')) out.helpers += ms;
    else if (name.startsWith('MergeMutate')) out.merges += ms;
    else out.engine += ms;
  }
  return out;
}

/** CPU per unit of work between two readings (threads that ended meanwhile are not counted). */
export function cpuPer(before: ThreadCpu, after: ThreadCpu, units: number): ThreadCpu {
  const per = (k: keyof ThreadCpu): number => (units > 0 ? Math.max(0, after[k] - before[k]) / units : NaN);
  return { gateway: per('gateway'), helpers: per('helpers'), engine: per('engine'), merges: per('merges') };
}
