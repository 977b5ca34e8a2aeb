import { formatMillis, type Storage } from '@loom/clickhouse';
import { LoomError, type LiveSettingKey, type SettingsResponse } from '@loom/contracts';
import { nextVersion, RefreshingCache } from '@loom/platform';

const CACHE_MS = 1_000;

const RANGES: Record<LiveSettingKey, { min: number; max: number; integer: boolean }> = {
  // Search hits show text from the embedding row, which keeps at most 2,048 characters.
  conversation_search_excerpt_chars: { min: 0, max: 2048, integer: true },
  // A cosine floor: below 0 it would keep hits that point away from the query, which is no floor.
  conversation_search_min_similarity: { min: 0, max: 1, integer: false },
  session_brief_model_calls: { min: 0, max: 1, integer: true },
};

/**
 * Settings that change without a restart: the environment gives the defaults, `settings.set`
 * stores an override, and readers see it within a second (at once in the writing process).
 */
export class LiveSettingsService {
  private readonly cache: RefreshingCache<'all', SettingsResponse>;

  constructor(
    private readonly storage: Storage,
    private readonly defaults: SettingsResponse,
  ) {
    // Settings are read on every search: an expired value is answered while one load replaces it.
    this.cache = new RefreshingCache(CACHE_MS, () => this.load(), { staleWhileRevalidate: true });
  }

  all(): Promise<SettingsResponse> {
    return this.cache.get('all');
  }

  private async load(): Promise<SettingsResponse> {
    const rows = await this.storage.query<{ key: string; value: string }>(
      `SELECT key, value FROM ${this.storage.tables.settings} FINAL`,
    );
    const values: SettingsResponse = { ...this.defaults };
    for (const row of rows) {
      if (row.key in RANGES) values[row.key as LiveSettingKey] = Number(row.value);
    }
    return values;
  }

  async get(key: LiveSettingKey): Promise<number> {
    return (await this.all())[key];
  }

  async set(key: LiveSettingKey, value: number): Promise<SettingsResponse> {
    const range = RANGES[key];
    if (value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
      throw new LoomError('invalid_input', `${key} must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}`, {
        fields: [{ field: 'value', message: `out of range for ${key}` }],
      });
    }
    await this.storage.insert(this.storage.tables.settings, [{ key, value: String(value), updated_at: formatMillis(), version: nextVersion() }]);
    this.cache.delete('all');
    return this.all();
  }
}
