import { openTestStorage } from '../../testing/src/storage.harness';
import { formatMicros, mapStorageError, toIso } from './storage';
import { LoomError } from '@loom/contracts';

describe('Storage on the embedded engine', () => {
  it('a setting in a statement\'s SETTINGS clause does not outlive its query (the embedded adapter would leak client settings session-wide)', async () => {
    const storage = await openTestStorage();
    try {
      const before = await storage.query<{ v: string }>("SELECT getSetting('max_threads') AS v");
      const inside = await storage.query<{ v: string }>("SELECT getSetting('max_threads') AS v SETTINGS max_threads = 1");
      const after = await storage.query<{ v: string }>("SELECT getSetting('max_threads') AS v");
      expect(String(inside[0]!.v)).toBe('1');
      expect(String(after[0]!.v)).toBe(String(before[0]!.v));
      expect(String(after[0]!.v)).not.toBe('1');
    } finally {
      await storage.drop();
    }
  });

  it('values travel as parameters: quotes and backslashes in a value cannot change the statement', async () => {
    const storage = await openTestStorage();
    try {
      const hostile = "x' OR 1=1 --\\'";
      const rows = await storage.query<{ v: string }>('SELECT {v:String} AS v', { v: hostile });
      expect(rows).toEqual([{ v: hostile }]);
    } finally {
      await storage.drop();
    }
  });

  it('formats and parses ClickHouse DateTime64 text in UTC', () => {
    expect(formatMicros(Date.UTC(2026, 10, 29, 12, 0, 0, 123) * 1000 + 456)).toBe('2026-11-29 12:00:00.123456');
    expect(toIso('2026-11-29 12:00:00.123456')).toBe('2026-11-29T12:00:00.123456Z');
  });

  it('a refused connection becomes "unavailable" (503, retry safe); other errors pass through', () => {
    const refused = mapStorageError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }));
    expect(refused).toBeInstanceOf(LoomError);
    expect((refused as LoomError).status).toBe(503);
    const syntax = new Error('Code: 62. DB::Exception: Syntax error');
    expect(mapStorageError(syntax)).toBe(syntax);
  });
  it('[ADR 0042] a search\'s statement issued while background reads are queued runs after the one already running, not after all of them', async () => {
    const storage = await openTestStorage();
    try {
      const done: string[] = [];
      // Eight pages of a background read, each about 100 ms of engine time, all asked at once.
      const pages = Array.from({ length: 8 }, (_, i) => storage.backgroundQuery('SELECT sleep(0.1) AS s').then(() => void done.push(`page ${i}`)));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await storage.query('SELECT 1 AS one');
      done.push('search');
      await Promise.all(pages);
      // Without the gate it waited behind most of the pages asked before it (5 of 8 in a run without it).
      expect(done.indexOf('search')).toBeLessThanOrEqual(1);
      expect(done.filter((d) => d.startsWith('page'))).toHaveLength(8);
    } finally {
      await storage.drop();
    }
  });
});
