import { LoomError } from '@loom/contracts';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringifyLoggedRow } from './row-json';
import { WriteAheadLog } from './write-ahead-log';

// The module object itself (not an import-star copy), so a fault put on write(2) reaches the log's own calls.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

const entry = (i: number) => ({ table: 'loom.conversations', rows: [{ msg_id: `m${i}`, content: `turn ${i} `.repeat(20) }] });

describe('write-ahead log on a full disk [issue 9: disk full]', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loom-wal-full-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write the kernel refuses with ENOSPC is `unavailable` (503), not an internal error', () => {
    const wal = new WriteAheadLog(dir);
    // The next segment is /dev/full: every write to it fails with ENOSPC, as on a full disk.
    symlinkSync('/dev/full', join(dir, '000000000001.jsonl'));
    let thrown: unknown;
    try {
      wal.append(entry(1));
    } catch (error) {
      thrown = error;
    }
    expect(LoomError.isLoomError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'unavailable', status: 503 });
    expect((thrown as Error).message).toContain('ENOSPC');
  });

  it('an entry the disk cut off half-way is removed, so the entries logged after it still replay', () => {
    const wal = new WriteAheadLog(dir);
    wal.append(entry(1));
    const realWrite = fs.writeSync;
    let calls = 0;
    // The disk fills in the middle of entry 2: half of it is written, then ENOSPC.
    jest.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buffer: Buffer, offset: number, length: number) => {
      calls += 1;
      if (calls === 1) return realWrite(fd, buffer, offset, Math.floor(length / 2));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as unknown as typeof fs.writeSync);
    expect(() => wal.append(entry(2))).toThrow(/write-ahead log could not be written \(ENOSPC\)/);
    jest.restoreAllMocks();

    // Space is back: the next entry follows entry 1 directly, with no torn line between them.
    wal.append(entry(3));
    wal.close();
    const segments = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    expect(segments).toHaveLength(1);
    const replayed = WriteAheadLog.read(join(dir, segments[0]!));
    expect(replayed.map((e) => (e.rows[0] as { msg_id: string }).msg_id)).toEqual(['m1', 'm3']);
  });
});

describe('write-ahead log entries', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'loom-wal-line-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('CONV-APPEND-06: a logged line is the insert as JSON, and the engine encoder answers each logged row with the text logged', () => {
    const rows = [
      { msg_id: 'm1', content: 'quote " slash \\ line \n \u{1F600} \u2028', embedding: [0.1, -2.5e-7, 1 / 3] },
      { msg_id: 'm2', content: '', embedding: [], metadata: null },
    ];
    const wal = new WriteAheadLog(dir);
    const bytes = wal.append({ table: 'loom.conversation_embeddings', rows });
    wal.close();
    const [segment] = readdirSync(dir);
    const text = fs.readFileSync(join(dir, segment!), 'utf8');
    expect(text).toBe(JSON.stringify({ table: 'loom.conversation_embeddings', rows }) + '\n');
    expect(bytes).toBe(Buffer.byteLength(text));
    expect(WriteAheadLog.read(join(dir, segment!))).toEqual([{ table: 'loom.conversation_embeddings', rows }]);

    // A row changed after it was logged is still sent as logged; any other value is plain JSON.
    const logged = JSON.stringify(rows[0]);
    rows[0]!.content = 'changed';
    expect(stringifyLoggedRow(rows[0])).toBe(logged);
    expect(stringifyLoggedRow({ msg_id: 'm3' })).toBe('{"msg_id":"m3"}');
    expect(stringifyLoggedRow([1, 'a'])).toBe('[1,"a"]');

    // The same object logged again after a change is logged, and then sent, as it is now.
    const again = new WriteAheadLog(dir);
    again.append({ table: 'loom.conversation_embeddings', rows: [rows[0]!] });
    again.close();
    const second = readdirSync(dir).sort()[1]!;
    expect(WriteAheadLog.read(join(dir, second))).toEqual([{ table: 'loom.conversation_embeddings', rows: [{ ...rows[0], content: 'changed' }] }]);
    expect(stringifyLoggedRow(rows[0])).toBe(JSON.stringify(rows[0]));
  });
});
