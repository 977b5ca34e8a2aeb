import { IsDefined, IsIn } from 'class-validator';
import { type SearchMode } from '../conversations/conversation.dto';

/** Settings an admin can change while Loom runs; each takes effect without a restart. */
/**
 * `session_brief_model_calls` is the org's switch for the model calls that revise session briefs:
 * 1 (on, the default) or 0 (off). A save reads it before each window.
 * `conversation_search_default_mode` is the `search_mode` of a conversation.search that names none.
 * `tracker_duplicate_threshold` is the score (0..1) from which tracker.duplicate_check calls an
 * older issue a duplicate.
 */
export const LiveSettingKeys = [
  'conversation_search_excerpt_chars',
  'conversation_search_min_similarity',
  'session_brief_model_calls',
  'conversation_search_default_mode',
  'tracker_duplicate_threshold',
] as const;
export type LiveSettingKey = (typeof LiveSettingKeys)[number];

/** Changes one live setting, for every namespace, without a restart. */
export class SetSettingRequest {
  @IsIn(LiveSettingKeys, { message: `key must be one of ${LiveSettingKeys.join(', ')}` }) key!: LiveSettingKey;
  /** A number, or for `conversation_search_default_mode` a mode's name; the range is checked per key. */
  @IsDefined() value!: number | string;

  static readonly example: SetSettingRequest = Object.assign(new SetSettingRequest(), {
    key: 'conversation_search_excerpt_chars',
    value: 120,
  });
}
/** The live settings. */
export class GetSettingsRequest {
  static readonly example: GetSettingsRequest = new GetSettingsRequest();
}
export interface SettingsResponse {
  conversation_search_excerpt_chars: number;
  conversation_search_min_similarity: number;
  session_brief_model_calls: number;
  conversation_search_default_mode: SearchMode;
  tracker_duplicate_threshold: number;
}
