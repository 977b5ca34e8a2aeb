-- The pull requests a run named on completion (run.complete pull_requests), as three parallel
-- arrays: number, the repository's name in Loom's code index ('' when not given) and its URL
-- ('' when not given). History answers look runs up by PR number to link a PR to the runs that
-- wrote it; a run names few PRs, so a scan of the namespace's runs with has() is cheap.
ALTER TABLE {db}.runs {on_cluster}
    ADD COLUMN IF NOT EXISTS pr_numbers Array(UInt32),
    ADD COLUMN IF NOT EXISTS pr_repositories Array(String),
    ADD COLUMN IF NOT EXISTS pr_urls Array(String)
