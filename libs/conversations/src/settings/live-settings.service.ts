import { formatMillis, type Storage } from '@loom/clickhouse';
import { LoomError, SearchModes, type LiveSettingKey, type SearchMode, type SettingsResponse } from '@loom/contracts';
import { nextVersion, RefreshingCache } from '@loom/platform';

const CACHE_MS = 1_000;

type NumericKey = Exclude<LiveSettingKey, 'conversation_search_default_mode'>;

const RANGES: Record<NumericKey, { min: number; max: number; integer: boolean }> = {
  // Search hits show text from the embedding row, which keeps at most 2,048 characters.
  conversation_search_excerpt_chars: { min: 0, max: 2048, integer: true },
  // A cosine floor: below 0 it would keep hits that point away from the query, which is no floor.
  conversation_search_min_similarity: { min: 0, max: 1, integer: false },
  session_brief_model_calls: { min: 0, max: 1, integer: true },
  tracker_duplicate_threshold: { min: 0, max: 1, integer: false },
};

/** Settings whose value is one of a list of names rather than a number. */
const CHOICES: Record<Exclude<LiveSettingKey, NumericKey>, readonly string[]> = {
  conversation_search_default_mode: SearchModes,
};

const isNumeric = (key: LiveSettingKey): key is NumericKey => key in RANGES;

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
      if (row.key in RANGES) values[row.key as NumericKey] = Number(row.value);
      else if (row.key === 'conversation_search_default_mode' && CHOICES.conversation_search_default_mode.includes(row.value)) {
        values.conversation_search_default_mode = row.value as SearchMode;
      }
    }
    return values;
  }

  async get<K extends LiveSettingKey>(key: K): Promise<SettingsResponse[K]> {
    return (await this.all())[key];
  }

  async set(key: LiveSettingKey, value: number | string): Promise<SettingsResponse> {
    if (isNumeric(key)) {
      const range = RANGES[key];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
        throw new LoomError('invalid_input', `${key} must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}`, {
          fields: [{ field: 'value', message: `out of range for ${key}` }],
        });
      }
    } else if (typeof value !== 'string' || !CHOICES[key].includes(value)) {
      throw new LoomError('invalid_input', `${key} must be one of ${CHOICES[key].join(', ')}`, {
        fields: [{ field: 'value', message: `${JSON.stringify(value)} is not one of ${CHOICES[key].join(', ')}` }],
      });
    }
    await this.storage.insert(this.storage.tables.settings, [{ key, value: String(value), updated_at: formatMillis(), version: nextVersion() }]);
    this.cache.delete('all');
    return this.all();
  }
}
