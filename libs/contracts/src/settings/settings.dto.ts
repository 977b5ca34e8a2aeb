import { IsIn, IsNumber } from 'class-validator';

/** Settings an admin can change while Loom runs; each takes effect without a restart. */
/**
 * `session_brief_model_calls` is the org's switch for the model calls that revise session briefs:
 * 1 (on, the default) or 0 (off). A save reads it before each window.
 */
export const LiveSettingKeys = ['conversation_search_excerpt_chars', 'conversation_search_min_similarity', 'session_brief_model_calls'] as const;
export type LiveSettingKey = (typeof LiveSettingKeys)[number];

export class SetSettingRequest {
  @IsIn(LiveSettingKeys, { message: `key must be one of ${LiveSettingKeys.join(', ')}` }) key!: LiveSettingKey;
  @IsNumber() value!: number;

  static readonly example: SetSettingRequest = Object.assign(new SetSettingRequest(), {
    key: 'conversation_search_excerpt_chars',
    value: 120,
  });
}
export class GetSettingsRequest {
  static readonly example: GetSettingsRequest = new GetSettingsRequest();
}
export type SettingsResponse = Record<LiveSettingKey, number>;
