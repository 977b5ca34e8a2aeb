-- When each API token last authenticated a call, for `token.list`. Kept apart from api_tokens:
-- rewriting a token's row to note a use could race a revoke and undo it. Written at most once a
-- minute per token and process; the newest time wins.
CREATE TABLE IF NOT EXISTS {db}.api_token_usage {on_cluster}
(
    token_id String,
    last_used_at DateTime64(3, 'UTC')
)
ENGINE = {replacing}(last_used_at)
ORDER BY token_id
