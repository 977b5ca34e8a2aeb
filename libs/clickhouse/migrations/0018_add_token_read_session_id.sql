-- A token bounded to one session (read_scope own_session) names that session: its session
-- briefs are stored as ~<user>~<session>~<key>.
ALTER TABLE {db}.api_tokens {on_cluster} ADD COLUMN IF NOT EXISTS read_session_id String DEFAULT ''
