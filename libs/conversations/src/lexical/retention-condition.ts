/**
 * The condition that keeps a posting's turn out of lexical search once the retention TTL
 * (LOOM_RETENTION_CONVERSATIONS_DAYS) has expired its transcript row: the same expression as
 * the transcript's TTL (`toDateTime(ts) + toIntervalDay(days)`), on the posting's own `ts`, so
 * an expired turn is neither found by its words nor counted in the statistics, whether or not
 * a merge has removed its rows yet. None when retention keeps turns forever (0).
 */
export function retentionCondition(days: number, params: Record<string, unknown>): string[] {
  if (days <= 0) return [];
  params['retention_days'] = Math.floor(days);
  return ['toDateTime(ts) + toIntervalDay({retention_days:UInt32}) > now()'];
}
