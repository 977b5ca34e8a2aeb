#!/usr/bin/env sh
# Loom capture for Cursor: run by Cursor's `stop` hook (integrations/cursor/hooks.json, in
# ~/.cursor/hooks.json). Hands the conversation's transcript to `loom ingest-transcript`
# (Markdown: # user / # assistant, or SpecStory's export). It prints nothing on stdout, which
# Cursor reads as the hook's JSON answer: the ingest's report goes to stderr.
#   cursor-session-hook.sh [TRANSCRIPT_FILE [CONVERSATION_ID]]
# Without arguments it reads the hook's JSON on stdin (transcript_path, conversation_id).
# Environment: LOOM_NAMESPACE (default "default"), LOOM_URL, LOOM_TOKEN, LOOM_CLI (default "loom"),
# LOOM_CAPTURE_CONVERSATIONS=false turns it off. Never fails the editor: errors go to stderr.
set -u
[ "${LOOM_CAPTURE_CONVERSATIONS:-true}" = "false" ] && exit 0
file="${1:-}"
conversation="${2:-}"
if [ -z "$file" ]; then
  input=$(cat)
  file=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(JSON.parse(s).transcript_path||"")}catch{}})')
  conversation=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(JSON.parse(s).conversation_id||"")}catch{}})')
fi
[ -z "$file" ] && exit 0
# shellcheck disable=SC2086
${LOOM_CLI:-loom} ingest-transcript --namespace "${LOOM_NAMESPACE:-default}" --file "$file" \
  ${conversation:+--thread-id "$conversation"} --agent "${LOOM_AGENT:-cursor}" >&2 || echo "loom capture: ingest failed (see above)" >&2
exit 0
