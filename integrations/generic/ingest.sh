#!/usr/bin/env sh
# Loom capture for any other agent: ingest an exported transcript.
#   ingest.sh TRANSCRIPT_FILE [THREAD_ID]
# The file is Markdown (# user / # assistant sections), a JSON array of {role, content}, a
# Claude Code session or a Codex rollout. Give THREAD_ID to make a second run add nothing.
# Environment: LOOM_NAMESPACE (default "default"), LOOM_URL, LOOM_TOKEN, LOOM_CLI (default "loom").
set -eu
file="${1:?usage: ingest.sh TRANSCRIPT_FILE [THREAD_ID]}"
thread="${2:-}"
# shellcheck disable=SC2086
exec ${LOOM_CLI:-loom} ingest-transcript --namespace "${LOOM_NAMESPACE:-default}" --file "$file" ${thread:+--thread-id "$thread"}
