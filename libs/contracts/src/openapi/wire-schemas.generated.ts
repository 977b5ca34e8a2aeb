// Generated from the TypeScript types of the contracts by `npm run generate:wire`
// (libs/contracts/src/openapi/generate). Do not edit: change the types and run it again.
import type { WireSchemaSet } from './json-schema';

export const WireSchemas: WireSchemaSet = {
  "components": {
    "AppendTurnResponse": {
      "type": "object",
      "properties": {
        "stored": {
          "type": "boolean"
        },
        "reason": {
          "type": "string",
          "enum": [
            "logging_disabled",
            "duplicate",
            "deleted"
          ]
        },
        "thread_id": {
          "type": "string"
        },
        "msg_id": {
          "type": "string"
        }
      },
      "required": [
        "stored",
        "thread_id",
        "msg_id"
      ]
    },
    "BriefDeleteResponse": {
      "type": "object",
      "properties": {
        "brief_key": {
          "type": "string"
        },
        "deleted": {
          "type": "boolean"
        }
      },
      "required": [
        "brief_key",
        "deleted"
      ]
    },
    "BriefGetResponse": {
      "type": "object",
      "properties": {
        "brief": {
          "$ref": "#/components/schemas/BriefView"
        }
      },
      "required": [
        "brief"
      ]
    },
    "BriefListItem": {
      "type": "object",
      "properties": {
        "brief_key": {
          "type": "string"
        },
        "project": {
          "type": [
            "string",
            "null"
          ]
        },
        "branch": {
          "type": [
            "string",
            "null"
          ]
        },
        "revision": {
          "type": "number"
        },
        "updated_at": {
          "type": "string"
        },
        "line": {
          "description": "One line: the goal, else the status.",
          "type": "string"
        }
      },
      "required": [
        "brief_key",
        "project",
        "branch",
        "revision",
        "updated_at",
        "line"
      ]
    },
    "BriefListResponse": {
      "type": "object",
      "properties": {
        "briefs": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/BriefListItem"
          }
        }
      },
      "required": [
        "briefs"
      ]
    },
    "BriefSaveResponse": {
      "type": "object",
      "properties": {
        "brief_key": {
          "type": "string"
        },
        "changed": {
          "type": "boolean"
        },
        "revision": {
          "type": "number"
        },
        "author": {
          "type": "string",
          "enum": [
            "llm",
            "deterministic",
            "model"
          ]
        },
        "reason": {
          "description": "`not-revised`: an events-only save with no model to call.",
          "type": "string",
          "enum": [
            "not-revised",
            "retry"
          ]
        },
        "windows": {
          "description": "Event windows the model revised; those whose call failed, did not parse or was held because the switch could not be read (skipped); and those not sent because the org's model calls were switched off during the save.",
          "type": "object",
          "properties": {
            "revised": {
              "type": "number"
            },
            "failed": {
              "type": "number"
            },
            "switched_off": {
              "type": "number"
            }
          },
          "required": [
            "revised",
            "failed",
            "switched_off"
          ]
        },
        "skipped_high": {
          "description": "Events, texts and items held back because they read as high (never sent, never stored); absent when none.",
          "type": "number"
        }
      },
      "required": [
        "brief_key",
        "changed",
        "revision"
      ]
    },
    "BriefSections": {
      "type": "object",
      "properties": {
        "goal": {
          "type": "string"
        },
        "status": {
          "type": "string"
        },
        "decisions": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "dead_ends": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "done": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "open_questions": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "next_steps": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "key_files": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "constraints": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "pointers": {
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "required": [
        "goal",
        "status",
        "decisions",
        "dead_ends",
        "done",
        "open_questions",
        "next_steps",
        "key_files",
        "constraints",
        "pointers"
      ]
    },
    "BriefView": {
      "type": "object",
      "properties": {
        "brief_key": {
          "type": "string"
        },
        "project": {
          "type": [
            "string",
            "null"
          ]
        },
        "branch": {
          "type": [
            "string",
            "null"
          ]
        },
        "revision": {
          "type": "number"
        },
        "author": {
          "type": "string",
          "enum": [
            "llm",
            "deterministic",
            "model"
          ]
        },
        "session_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "updated_at": {
          "type": "string"
        },
        "sections": {
          "$ref": "#/components/schemas/BriefSections"
        },
        "rendered": {
          "description": "The brief as text, under about 12,000 characters.",
          "type": "string"
        },
        "client_summary": {
          "description": "With `full`: the client's last compaction summary, verbatim.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "brief_key",
        "project",
        "branch",
        "revision",
        "author",
        "session_id",
        "updated_at",
        "sections",
        "rendered"
      ]
    },
    "CodeAddResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "$ref": "#/components/schemas/RepositoryView"
        }
      },
      "required": [
        "repository"
      ]
    },
    "CodeGithubSyncResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "source": {
          "$ref": "#/components/schemas/GithubSourceView"
        }
      },
      "required": [
        "repository",
        "source"
      ]
    },
    "CodeListResponse": {
      "type": "object",
      "properties": {
        "enabled": {
          "description": "Whether LOOM_CODE_INGEST_ENABLED is on for this deployment.",
          "type": "boolean"
        },
        "repositories": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RepositoryView"
          }
        }
      },
      "required": [
        "enabled",
        "repositories"
      ]
    },
    "CompactThreadResponse": {
      "type": "object",
      "properties": {
        "thread_id": {
          "type": "string"
        },
        "compacted": {
          "type": "boolean"
        },
        "messages_summarized": {
          "description": "Turns the summary replaced, earlier summaries not counted.",
          "type": "number"
        },
        "summary_msg_id": {
          "description": "The new summary turn (a `system` turn with `metadata.compacted_from`).",
          "type": "string"
        },
        "reason": {
          "type": "string",
          "enum": [
            "embed-failed",
            "summary-high-sensitivity",
            "nothing-to-compact"
          ]
        }
      },
      "required": [
        "thread_id",
        "compacted",
        "messages_summarized"
      ]
    },
    "ContextPackResponse": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string"
        },
        "scope": {
          "type": "object",
          "properties": {
            "user_id": {
              "type": [
                "string",
                "null"
              ]
            },
            "session_id": {
              "type": [
                "string",
                "null"
              ]
            }
          },
          "required": [
            "user_id",
            "session_id"
          ]
        },
        "memories": {
          "description": "Facts (memory.search), best first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/MemoryHit"
          }
        },
        "conversation": {
          "description": "The session's own turns (conversation.search in its thread); empty without session_id.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/SearchHit"
          }
        },
        "evidence": {
          "description": "Turns extractions read (memory.recall by words).",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RecallHit"
          }
        },
        "actions": {
          "description": "The session's latest tool actions (observe.list), oldest first; empty without session_id.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ObservationView"
          }
        },
        "pack": {
          "description": "The sections as one text, cut at a line to `max_chars`.",
          "type": "string"
        },
        "truncated": {
          "type": "boolean"
        },
        "unavailable": {
          "description": "Sections left empty because a dependency was down (e.g. `memories` without the embedder).",
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "required": [
        "query",
        "scope",
        "memories",
        "conversation",
        "evidence",
        "actions",
        "pack",
        "truncated",
        "unavailable"
      ]
    },
    "CreateThreadResponse": {
      "type": "object",
      "properties": {
        "created": {
          "type": "boolean"
        },
        "reason": {
          "type": "string",
          "enum": [
            "logging_disabled"
          ]
        },
        "thread_id": {
          "type": "string"
        }
      },
      "required": [
        "created",
        "thread_id"
      ]
    },
    "CreateTokenResponse": {
      "type": "object",
      "properties": {
        "token": {
          "description": "Shown once; only its hash is stored.",
          "type": "string"
        },
        "token_id": {
          "type": "string"
        },
        "namespace": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "viewer",
            "writer",
            "admin"
          ]
        }
      },
      "required": [
        "token",
        "token_id",
        "namespace",
        "role"
      ]
    },
    "DeleteThreadResponse": {
      "type": "object",
      "properties": {
        "thread_id": {
          "type": "string"
        },
        "deleted": {
          "type": "boolean"
        },
        "turns_deleted": {
          "description": "The calling agent's turns tombstoned.",
          "type": "number"
        },
        "embeddings_kept": {
          "description": "Shared embedding rows handed to another agent's live copy instead of tombstoned.",
          "type": "number"
        }
      },
      "required": [
        "thread_id",
        "deleted",
        "turns_deleted",
        "embeddings_kept"
      ]
    },
    "DuplicateCandidate": {
      "type": "object",
      "properties": {
        "id": {
          "type": "string"
        },
        "title": {
          "type": "string"
        },
        "state": {
          "type": [
            "string",
            "null"
          ]
        },
        "created_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "url": {
          "type": [
            "string",
            "null"
          ]
        },
        "score": {
          "description": "0..1: how likely this older issue is the one the new issue duplicates.",
          "type": "number"
        },
        "duplicate": {
          "description": "Whether the score reaches the live threshold (`tracker_duplicate_threshold`).",
          "type": "boolean"
        },
        "shared": {
          "description": "Code-like evidence both issues share (error codes, exception names, stack frames).",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "via": {
          "description": "The issue the new one matched when the tracker records that issue as a duplicate of this one (its `issues.duplicate_of` or `duplicate_links`): the original answers in the known duplicate's place, with its score and shared evidence. Null when this issue matched on its own.",
          "type": [
            "string",
            "null"
          ]
        },
        "reason": {
          "description": "Why this issue stands where the new one matched another; null when it matched on its own.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "id",
        "title",
        "state",
        "created_at",
        "url",
        "score",
        "duplicate",
        "shared",
        "via",
        "reason"
      ]
    },
    "ErasedCounts": {
      "description": "Rows tombstoned (or removed, with purge) per kind. `runs` counts run rows and their usage reports; only a purge removes them (runs carry no person's text).",
      "type": "object",
      "properties": {
        "turns": {
          "type": "number"
        },
        "embeddings": {
          "type": "number"
        },
        "threads": {
          "type": "number"
        },
        "memories": {
          "type": "number"
        },
        "evidence": {
          "type": "number"
        },
        "briefs": {
          "type": "number"
        },
        "runs": {
          "type": "number"
        },
        "observations": {
          "type": "number"
        }
      },
      "required": [
        "turns",
        "embeddings",
        "threads",
        "memories",
        "evidence",
        "briefs",
        "runs",
        "observations"
      ]
    },
    "ErasureExportResponse": {
      "type": "object",
      "properties": {
        "turns": {
          "description": "Transcript turns only: embedding rows are never exported.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ExportedTurn"
          }
        },
        "next_cursor": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "turns",
        "next_cursor"
      ]
    },
    "ErasureResponse": {
      "type": "object",
      "properties": {
        "erasure_id": {
          "type": "string"
        },
        "status": {
          "description": "`pending` until every row is erased (retried after a failure or a crash); `failed` after the last attempt.",
          "type": "string",
          "enum": [
            "pending",
            "done",
            "failed"
          ]
        },
        "subject": {
          "type": "string",
          "enum": [
            "user",
            "namespace_list"
          ]
        },
        "namespaces": {
          "anyOf": [
            {
              "type": "string",
              "enum": [
                "*"
              ]
            },
            {
              "type": "array",
              "items": {
                "type": "string"
              }
            }
          ]
        },
        "erased": {
          "description": "The counts of the attempt that finished it; null until then.",
          "anyOf": [
            {
              "$ref": "#/components/schemas/ErasedCounts"
            },
            {
              "type": "null"
            }
          ]
        },
        "purged": {
          "type": "boolean"
        },
        "attempts": {
          "type": "number"
        },
        "last_error": {
          "description": "The last attempt's error, '' when none.",
          "type": "string"
        },
        "created_at": {
          "type": "string"
        },
        "updated_at": {
          "type": "string"
        }
      },
      "required": [
        "erasure_id",
        "status",
        "subject",
        "namespaces",
        "erased",
        "purged",
        "attempts",
        "last_error",
        "created_at",
        "updated_at"
      ]
    },
    "ExportedTurn": {
      "type": "object",
      "properties": {
        "namespace": {
          "type": "string"
        },
        "thread_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "msg_id": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "content": {
          "type": "string"
        },
        "reasoning": {
          "type": "string"
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "run_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "ts": {
          "type": "string"
        },
        "is_saved": {
          "type": "boolean"
        },
        "deleted": {
          "type": "boolean"
        },
        "deleted_at": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "namespace",
        "thread_id",
        "agent",
        "msg_id",
        "role",
        "content",
        "reasoning",
        "user_id",
        "run_id",
        "ts",
        "is_saved",
        "deleted",
        "deleted_at"
      ]
    },
    "ExtractionStatusResponse": {
      "type": "object",
      "properties": {
        "extraction_id": {
          "type": "string"
        },
        "status": {
          "description": "pending (waiting or retrying), done, or failed (every attempt failed; the evidence is kept).",
          "type": "string",
          "enum": [
            "pending",
            "done",
            "failed"
          ]
        },
        "facts": {
          "description": "Facts stored; null until done.",
          "type": [
            "number",
            "null"
          ]
        },
        "attempts": {
          "type": "number"
        },
        "last_error": {
          "description": "What the last failed attempt said (the provider's error; never the messages).",
          "type": [
            "string",
            "null"
          ]
        },
        "next_attempt_at": {
          "description": "When a pending extraction is next tried.",
          "type": [
            "string",
            "null"
          ]
        },
        "created_at": {
          "type": "string"
        },
        "updated_at": {
          "type": "string"
        }
      },
      "required": [
        "extraction_id",
        "status",
        "facts",
        "attempts",
        "last_error",
        "next_attempt_at",
        "created_at",
        "updated_at"
      ]
    },
    "FlakyRun": {
      "type": "object",
      "properties": {
        "commit": {
          "type": "string"
        },
        "status": {
          "type": "string"
        },
        "run_at": {
          "type": "string"
        }
      },
      "required": [
        "commit",
        "status",
        "run_at"
      ]
    },
    "FlakyTest": {
      "type": "object",
      "properties": {
        "test": {
          "type": "string"
        },
        "flaky_commits": {
          "description": "Commits on which the test both failed and passed.",
          "type": "number"
        },
        "failures": {
          "type": "number"
        },
        "passes": {
          "type": "number"
        },
        "last_seen": {
          "type": "string"
        },
        "latest_runs": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/FlakyRun"
          }
        }
      },
      "required": [
        "test",
        "flaky_commits",
        "failures",
        "passes",
        "last_seen",
        "latest_runs"
      ]
    },
    "GetThreadResponse": {
      "type": "object",
      "properties": {
        "thread": {
          "$ref": "#/components/schemas/ThreadView"
        },
        "messages": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/TurnView"
          }
        },
        "next_cursor": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "thread"
      ]
    },
    "GithubSourceView": {
      "type": "object",
      "properties": {
        "github": {
          "description": "owner/name on GitHub.",
          "type": "string"
        },
        "api_url": {
          "type": "string"
        },
        "state": {
          "type": "string",
          "enum": [
            "failed",
            "ready",
            "interrupted",
            "syncing",
            "paused"
          ]
        },
        "reason": {
          "description": "Why it paused, failed or was interrupted, and what to do; null otherwise.",
          "type": [
            "string",
            "null"
          ]
        },
        "resume": {
          "description": "The command that resumes a sync that is not running (paused, failed, interrupted); null otherwise.",
          "type": [
            "string",
            "null"
          ]
        },
        "resume_at": {
          "description": "When a rate limit ends and the sync goes on by itself; null when it is not waiting.",
          "type": [
            "string",
            "null"
          ]
        },
        "token": {
          "description": "Which token the last sync used: the op's (`request`), LOOM_GITHUB_TOKEN (`config`) or none. Never the token.",
          "type": "string",
          "enum": [
            "request",
            "config",
            "none"
          ]
        },
        "pull_requests": {
          "type": "number"
        },
        "review_comments": {
          "type": "number"
        },
        "issues": {
          "type": "number"
        },
        "requests": {
          "description": "API requests the last sync made.",
          "type": "number"
        },
        "synced_at": {
          "description": "When a sync last finished.",
          "type": [
            "string",
            "null"
          ]
        },
        "updated_at": {
          "type": "string"
        }
      },
      "required": [
        "github",
        "api_url",
        "state",
        "reason",
        "resume",
        "resume_at",
        "token",
        "pull_requests",
        "review_comments",
        "issues",
        "requests",
        "synced_at",
        "updated_at"
      ]
    },
    "HistoryBisectResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "range": {
          "description": "The commits ranked: after `from` (excluded) up to `to` (included).",
          "type": "object",
          "properties": {
            "from": {
              "type": [
                "string",
                "null"
              ]
            },
            "to": {
              "type": "string"
            },
            "commits": {
              "type": "number"
            }
          },
          "required": [
            "from",
            "to",
            "commits"
          ]
        },
        "candidates": {
          "description": "Most likely first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RankedChangeView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "range",
        "candidates",
        "incidents_reason"
      ]
    },
    "HistoryDuplicateCheckResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "candidates": {
          "description": "Best first: merged changes (mainline commits, with their PR when one is known) and, with a GitHub source, open PRs.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RankedChangeView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "candidates",
        "incidents_reason"
      ]
    },
    "HistoryLineResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "path": {
          "type": "string"
        },
        "line": {
          "type": "number"
        },
        "ref": {
          "description": "The commit the line number refers to.",
          "type": "string"
        },
        "changes": {
          "description": "The chain of commits that wrote this line, newest first, ending at its origin when indexed.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/LineChangeView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "path",
        "line",
        "ref",
        "changes",
        "incidents_reason"
      ]
    },
    "HistoryPathResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "path": {
          "type": "string"
        },
        "changes": {
          "description": "Newest first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/PathChangeView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "path",
        "changes",
        "incidents_reason"
      ]
    },
    "HistoryReviewBriefResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "pr_number": {
          "type": "number"
        },
        "sha": {
          "type": "string"
        },
        "title": {
          "type": "string"
        },
        "what_changed": {
          "description": "What the change did, in a few sentences.",
          "type": "string"
        },
        "why": {
          "description": "Why, from its description (or the model's reading of it).",
          "type": "string"
        },
        "files": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ReviewFileView"
          }
        },
        "symbols": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "review_comments": {
          "description": "From the GitHub source, when one was synced; else empty. Oldest first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ReviewCommentView"
          }
        },
        "linked_issues": {
          "description": "Issues it names with Fixes/Closes/Resolves #N (commit message and PR description).",
          "type": "array",
          "items": {
            "type": "number"
          }
        },
        "issues": {
          "description": "Those issues as the GitHub source knows them (title, state, how they closed).",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/LinkedIssueView"
          }
        },
        "written_by": {
          "description": "`model` when the LLM provider condensed it, `builder` otherwise.",
          "type": "string",
          "enum": [
            "model",
            "builder"
          ]
        },
        "withheld": {
          "description": "Paragraphs or comments that read as high: never sent to a model nor shown.",
          "type": "number"
        },
        "runs": {
          "description": "The runs that named this PR on completion (run.complete pull_requests), oldest first.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "incidents": {
          "description": "Incidents that name this PR or its commit as their cause or fix (PRHIST-02).",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentLinkView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "pr_number",
        "sha",
        "title",
        "what_changed",
        "why",
        "files",
        "symbols",
        "review_comments",
        "linked_issues",
        "issues",
        "written_by",
        "withheld",
        "runs",
        "incidents",
        "incidents_reason"
      ]
    },
    "HistorySymbolResponse": {
      "type": "object",
      "properties": {
        "repository": {
          "type": "string"
        },
        "symbol": {
          "type": "string"
        },
        "changes": {
          "description": "Newest first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/SymbolChangeView"
          }
        },
        "incidents_reason": {
          "description": "Why no incidents are attached; null when the tracker source's incidents were read.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "repository",
        "symbol",
        "changes",
        "incidents_reason"
      ]
    },
    "IncidentLinkView": {
      "description": "An incident as a history answer carries it: linked to that commit or its PR.",
      "type": "object",
      "properties": {
        "id": {
          "type": "string"
        },
        "title": {
          "type": "string"
        },
        "severity": {
          "type": [
            "string",
            "null"
          ]
        },
        "status": {
          "type": [
            "string",
            "null"
          ]
        },
        "started_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "resolved_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "role": {
          "description": "`caused`: the incident names this commit or PR as its cause; `fixed`: as its fix.",
          "type": "string",
          "enum": [
            "caused",
            "fixed"
          ]
        },
        "via": {
          "description": "What matched: the commit's sha or its PR number.",
          "type": "string",
          "enum": [
            "commit",
            "pr"
          ]
        }
      },
      "required": [
        "id",
        "title",
        "severity",
        "status",
        "started_at",
        "resolved_at",
        "role",
        "via"
      ]
    },
    "IncidentPrRef": {
      "description": "A pull request an incident names, with the repository it names when it names one.",
      "type": "object",
      "properties": {
        "repository": {
          "description": "The repository as the incident named it (`acme/app` from `acme/app#1234` or a pull request URL, or a Loom repository name from `app#1234`), or the row's `repo` column (when the mapping names one) for a bare number. Null for a bare `1234`/`#1234` with no `repo` column: that names PR 1234 in every repository of the namespace.",
          "type": [
            "string",
            "null"
          ]
        },
        "number": {
          "type": "number"
        }
      },
      "required": [
        "repository",
        "number"
      ]
    },
    "IncidentRefs": {
      "description": "The PRs and commits an incident names, normalised: PR numbers, and commit shas (or prefixes) in lower case.",
      "type": "object",
      "properties": {
        "prs": {
          "description": "Every PR number named, whatever its repository (`pr_refs` says which).",
          "type": "array",
          "items": {
            "type": "number"
          }
        },
        "pr_refs": {
          "description": "Each PR named, with its repository when the incident named one.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentPrRef"
          }
        },
        "commits": {
          "type": "array",
          "items": {
            "type": "string"
          }
        }
      },
      "required": [
        "prs",
        "pr_refs",
        "commits"
      ]
    },
    "IncidentView": {
      "type": "object",
      "properties": {
        "id": {
          "type": "string"
        },
        "title": {
          "type": "string"
        },
        "severity": {
          "type": [
            "string",
            "null"
          ]
        },
        "status": {
          "type": [
            "string",
            "null"
          ]
        },
        "started_at": {
          "description": "Null only when the source's start column holds NULL.",
          "type": [
            "string",
            "null"
          ]
        },
        "resolved_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "summary": {
          "description": "The summary column, cut to 2,000 characters; null when none is mapped.",
          "type": [
            "string",
            "null"
          ]
        },
        "repository": {
          "description": "The row's `repo` column (`mapping.incidents.repo`) as the team wrote it, without a URL's scheme and host or a trailing `.git`; null when none is mapped or the cell is empty. With it, or with PR refs that name their repositories, an incident is of those repositories only: bisect counts its start time as evidence only there.",
          "type": [
            "string",
            "null"
          ]
        },
        "caused_by": {
          "$ref": "#/components/schemas/IncidentRefs"
        },
        "fixed_by": {
          "$ref": "#/components/schemas/IncidentRefs"
        }
      },
      "required": [
        "id",
        "title",
        "severity",
        "status",
        "started_at",
        "resolved_at",
        "summary",
        "repository",
        "caused_by",
        "fixed_by"
      ]
    },
    "IssueLink": {
      "type": "object",
      "properties": {
        "pr": {
          "description": "A pull request number, or a commit sha for commit messages.",
          "type": [
            "string",
            "null"
          ]
        },
        "sha": {
          "type": [
            "string",
            "null"
          ]
        },
        "source": {
          "type": "string",
          "enum": [
            "link_table",
            "pr_body",
            "commit_message"
          ]
        },
        "phrase": {
          "description": "The phrase that made the link (\"Fixes #12\"); null for the link table.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "pr",
        "sha",
        "source",
        "phrase"
      ]
    },
    "JsonObject": {
      "type": "object",
      "additionalProperties": {}
    },
    "LineChangeView": {
      "type": "object",
      "properties": {
        "path": {
          "type": "string"
        },
        "line": {
          "description": "The line's number in the file after this commit.",
          "type": "number"
        },
        "origin": {
          "description": "True for the commit that first wrote the line.",
          "type": "boolean"
        },
        "sha": {
          "type": "string"
        },
        "pr_number": {
          "description": "The pull request it landed (squash \"(#N)\" or \"Merge pull request #N\"), else null.",
          "type": [
            "number",
            "null"
          ]
        },
        "subject": {
          "type": "string"
        },
        "author": {
          "type": "string"
        },
        "committed_at": {
          "type": "string"
        },
        "pr_title": {
          "description": "The PR's title, from the GitHub source; null without one.",
          "type": [
            "string",
            "null"
          ]
        },
        "runs": {
          "description": "The runs that named its PR on completion (run.complete pull_requests), oldest first.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "incidents": {
          "description": "Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentLinkView"
          }
        }
      },
      "required": [
        "path",
        "line",
        "origin",
        "sha",
        "pr_number",
        "subject",
        "author",
        "committed_at",
        "pr_title",
        "runs",
        "incidents"
      ]
    },
    "LinkedIssueView": {
      "type": "object",
      "properties": {
        "number": {
          "type": "number"
        },
        "title": {
          "description": "Null when the issue is not in the GitHub source (or its title reads as high).",
          "type": [
            "string",
            "null"
          ]
        },
        "state": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "open",
            "closed",
            null
          ]
        },
        "state_reason": {
          "description": "completed, not_planned, duplicate, reopened; null when GitHub gives none.",
          "type": [
            "string",
            "null"
          ]
        },
        "closed_at": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "number",
        "title",
        "state",
        "state_reason",
        "closed_at"
      ]
    },
    "ListSavedMessagesResponse": {
      "type": "object",
      "properties": {
        "messages": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/SavedMessageItem"
          }
        },
        "next_cursor": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "messages",
        "next_cursor"
      ]
    },
    "ListThreadsResponse": {
      "type": "object",
      "properties": {
        "threads": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ThreadSummaryView"
          }
        }
      },
      "required": [
        "threads"
      ]
    },
    "ListTokensResponse": {
      "type": "object",
      "properties": {
        "tokens": {
          "description": "Newest first: the tokens the caller could revoke, of the namespace the request names (every one it covers when it names none).",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/TokenInfo"
          }
        }
      },
      "required": [
        "tokens"
      ]
    },
    "ListTurnsResponse": {
      "type": "object",
      "properties": {
        "messages": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/TurnView"
          }
        },
        "next_cursor": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "messages",
        "next_cursor"
      ]
    },
    "MemoryHit": {
      "type": "object",
      "properties": {
        "memory_id": {
          "type": "string"
        },
        "text": {
          "type": "string"
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "source": {
          "type": "string"
        },
        "score": {
          "type": "number"
        },
        "created_at": {
          "type": "string"
        }
      },
      "required": [
        "memory_id",
        "text",
        "user_id",
        "source",
        "score",
        "created_at"
      ]
    },
    "ObservationView": {
      "type": "object",
      "properties": {
        "session_id": {
          "type": "string"
        },
        "obs_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "tool": {
          "type": "string"
        },
        "summary": {
          "type": "string"
        },
        "path": {
          "type": [
            "string",
            "null"
          ]
        },
        "outcome": {
          "type": "string",
          "enum": [
            "ok",
            "error",
            "unknown"
          ]
        },
        "ts": {
          "type": "string"
        },
        "crystallized_at": {
          "description": "When the observation went into a crystallization (memory extraction); null before.",
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "session_id",
        "obs_id",
        "agent",
        "user_id",
        "tool",
        "summary",
        "path",
        "outcome",
        "ts",
        "crystallized_at"
      ]
    },
    "ObserveCrystallizeResponse": {
      "type": "object",
      "properties": {
        "session_id": {
          "type": "string"
        },
        "observations": {
          "description": "Observations handed to extraction (those not crystallized before).",
          "type": "number"
        },
        "extraction_id": {
          "description": "The memory extraction that reads them; null when there was nothing new.",
          "type": [
            "string",
            "null"
          ]
        },
        "deferred": {
          "type": "boolean"
        },
        "facts": {
          "type": "number"
        }
      },
      "required": [
        "session_id",
        "observations",
        "extraction_id",
        "deferred"
      ]
    },
    "ObserveListResponse": {
      "type": "object",
      "properties": {
        "observations": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/ObservationView"
          }
        }
      },
      "required": [
        "observations"
      ]
    },
    "ObserveRecordResponse": {
      "type": "object",
      "properties": {
        "session_id": {
          "type": "string"
        },
        "recorded": {
          "description": "Observations kept (one sent again counts here and is stored once).",
          "type": "number"
        },
        "skipped_high": {
          "description": "Observations whose summary or path reads as high: never stored.",
          "type": "number"
        }
      },
      "required": [
        "session_id",
        "recorded",
        "skipped_high"
      ]
    },
    "PathChangeView": {
      "type": "object",
      "properties": {
        "path": {
          "type": "string"
        },
        "old_path": {
          "description": "Set when the commit renamed the file to `path`.",
          "type": [
            "string",
            "null"
          ]
        },
        "change": {
          "type": "string",
          "enum": [
            "deleted",
            "added",
            "modified",
            "renamed"
          ]
        },
        "additions": {
          "type": "number"
        },
        "deletions": {
          "type": "number"
        },
        "sha": {
          "type": "string"
        },
        "pr_number": {
          "description": "The pull request it landed (squash \"(#N)\" or \"Merge pull request #N\"), else null.",
          "type": [
            "number",
            "null"
          ]
        },
        "subject": {
          "type": "string"
        },
        "author": {
          "type": "string"
        },
        "committed_at": {
          "type": "string"
        },
        "pr_title": {
          "description": "The PR's title, from the GitHub source; null without one.",
          "type": [
            "string",
            "null"
          ]
        },
        "runs": {
          "description": "The runs that named its PR on completion (run.complete pull_requests), oldest first.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "incidents": {
          "description": "Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentLinkView"
          }
        }
      },
      "required": [
        "path",
        "old_path",
        "change",
        "additions",
        "deletions",
        "sha",
        "pr_number",
        "subject",
        "author",
        "committed_at",
        "pr_title",
        "runs",
        "incidents"
      ]
    },
    "QuarantineDropResponse": {
      "type": "object",
      "properties": {
        "results": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "id": {
                "type": "string"
              },
              "outcome": {
                "type": "string",
                "enum": [
                  "not_found",
                  "dropped"
                ]
              }
            },
            "required": [
              "id",
              "outcome"
            ]
          }
        }
      },
      "required": [
        "results"
      ]
    },
    "QuarantinedRow": {
      "type": "object",
      "properties": {
        "id": {
          "type": "string"
        },
        "table": {
          "description": "The table the row was bound for.",
          "type": "string"
        },
        "key": {
          "description": "The row's key columns as JSON (namespace, thread, agent, msg_id, version…), never its text.",
          "type": "string"
        },
        "error": {
          "description": "What the engine answered the last time it refused the row.",
          "type": "string"
        },
        "attempts": {
          "type": "number"
        },
        "quarantined_at": {
          "type": "string"
        },
        "row": {
          "description": "With include_rows: the row as JSON text.",
          "type": "string"
        }
      },
      "required": [
        "id",
        "table",
        "key",
        "error",
        "attempts",
        "quarantined_at"
      ]
    },
    "QuarantineListResponse": {
      "type": "object",
      "properties": {
        "rows": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/QuarantinedRow"
          }
        }
      },
      "required": [
        "rows"
      ]
    },
    "QuarantineRetryResponse": {
      "type": "object",
      "properties": {
        "results": {
          "type": "array",
          "items": {
            "anyOf": [
              {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "outcome": {
                    "type": "string",
                    "const": "stored"
                  }
                },
                "required": [
                  "id",
                  "outcome"
                ]
              },
              {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "outcome": {
                    "type": "string",
                    "const": "refused"
                  },
                  "error": {
                    "type": "string"
                  }
                },
                "required": [
                  "id",
                  "outcome",
                  "error"
                ]
              },
              {
                "type": "object",
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "outcome": {
                    "type": "string",
                    "const": "not_found"
                  }
                },
                "required": [
                  "id",
                  "outcome"
                ]
              }
            ]
          }
        }
      },
      "required": [
        "results"
      ]
    },
    "RankedChangeView": {
      "type": "object",
      "properties": {
        "state": {
          "description": "`merged`: on the mainline (or a merged PR); `open`: an open PR from the GitHub source (sha is its head).",
          "type": "string",
          "enum": [
            "open",
            "merged"
          ]
        },
        "score": {
          "description": "0-1: higher is more likely.",
          "type": "number"
        },
        "reasons": {
          "description": "Why it is here, in words: shared terms, files, symbols.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "files_in_common": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "symbols_in_common": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "sha": {
          "type": "string"
        },
        "pr_number": {
          "description": "The pull request it landed (squash \"(#N)\" or \"Merge pull request #N\"), else null.",
          "type": [
            "number",
            "null"
          ]
        },
        "subject": {
          "type": "string"
        },
        "author": {
          "type": "string"
        },
        "committed_at": {
          "type": "string"
        },
        "pr_title": {
          "description": "The PR's title, from the GitHub source; null without one.",
          "type": [
            "string",
            "null"
          ]
        },
        "runs": {
          "description": "The runs that named its PR on completion (run.complete pull_requests), oldest first.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "incidents": {
          "description": "Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentLinkView"
          }
        }
      },
      "required": [
        "state",
        "score",
        "reasons",
        "files_in_common",
        "symbols_in_common",
        "sha",
        "pr_number",
        "subject",
        "author",
        "committed_at",
        "pr_title",
        "runs",
        "incidents"
      ]
    },
    "RecallHit": {
      "type": "object",
      "properties": {
        "extraction_id": {
          "type": "string"
        },
        "session_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "ts": {
          "type": "string"
        },
        "excerpt": {
          "type": "string"
        },
        "score": {
          "type": [
            "number",
            "null"
          ]
        }
      },
      "required": [
        "extraction_id",
        "session_id",
        "user_id",
        "role",
        "ts",
        "excerpt",
        "score"
      ]
    },
    "RecallResponse": {
      "type": "object",
      "properties": {
        "hits": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RecallHit"
          }
        }
      },
      "required": [
        "hits"
      ]
    },
    "RepositoryView": {
      "type": "object",
      "properties": {
        "name": {
          "type": "string"
        },
        "path": {
          "type": "string"
        },
        "ref": {
          "type": "string"
        },
        "state": {
          "type": "string",
          "enum": [
            "failed",
            "ingesting",
            "ready",
            "interrupted"
          ]
        },
        "error": {
          "description": "Why the last ingest failed or was interrupted, and what to do; null otherwise.",
          "type": [
            "string",
            "null"
          ]
        },
        "resume": {
          "description": "The command that resumes a failed or interrupted ingest from its checkpoint; null otherwise.",
          "type": [
            "string",
            "null"
          ]
        },
        "commits_indexed": {
          "type": "number"
        },
        "commits_total": {
          "type": "number"
        },
        "head": {
          "type": [
            "string",
            "null"
          ]
        },
        "updated_at": {
          "type": "string"
        },
        "github": {
          "description": "Its GitHub source (`code.github_sync`), or null when it has none.",
          "anyOf": [
            {
              "$ref": "#/components/schemas/GithubSourceView"
            },
            {
              "type": "null"
            }
          ]
        }
      },
      "required": [
        "name",
        "path",
        "ref",
        "state",
        "error",
        "resume",
        "commits_indexed",
        "commits_total",
        "head",
        "updated_at",
        "github"
      ]
    },
    "ReviewCommentView": {
      "type": "object",
      "properties": {
        "kind": {
          "description": "`review`: a review's verdict and summary; `comment`: a comment on lines of the diff.",
          "type": "string",
          "enum": [
            "review",
            "comment"
          ]
        },
        "id": {
          "type": "number"
        },
        "author": {
          "type": "string"
        },
        "path": {
          "type": [
            "string",
            "null"
          ]
        },
        "line": {
          "description": "The commented line in the PR's last version; null for reviews and outdated comments.",
          "type": [
            "number",
            "null"
          ]
        },
        "body": {
          "type": "string"
        },
        "state": {
          "description": "A review's verdict: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED; null for comments.",
          "type": [
            "string",
            "null"
          ]
        },
        "in_reply_to": {
          "description": "The comment this one answers (a thread's reply); null otherwise.",
          "type": [
            "number",
            "null"
          ]
        },
        "created_at": {
          "type": "string"
        },
        "resolved": {
          "description": "Whether a later commit of the PR changed the commented lines; null when unknown.",
          "type": [
            "boolean",
            "null"
          ]
        },
        "resolution": {
          "description": "How it ended, in words.",
          "type": "string"
        }
      },
      "required": [
        "kind",
        "id",
        "author",
        "path",
        "line",
        "body",
        "state",
        "in_reply_to",
        "created_at",
        "resolved",
        "resolution"
      ]
    },
    "ReviewFileView": {
      "type": "object",
      "properties": {
        "path": {
          "type": "string"
        },
        "change": {
          "type": "string",
          "enum": [
            "deleted",
            "added",
            "modified",
            "renamed"
          ]
        },
        "additions": {
          "type": "number"
        },
        "deletions": {
          "type": "number"
        }
      },
      "required": [
        "path",
        "change",
        "additions",
        "deletions"
      ]
    },
    "RevokeTokenResponse": {
      "type": "object",
      "properties": {
        "token_id": {
          "type": "string"
        },
        "revoked": {
          "type": "boolean"
        }
      },
      "required": [
        "token_id",
        "revoked"
      ]
    },
    "RunListResponse": {
      "type": "object",
      "properties": {
        "runs": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RunView"
          }
        },
        "model_cost": {
          "description": "Summed over the listed runs.",
          "anyOf": [
            {
              "$ref": "#/components/schemas/RunModelCost"
            },
            {
              "type": "null"
            }
          ]
        }
      },
      "required": [
        "runs",
        "model_cost"
      ]
    },
    "RunModelCost": {
      "type": "object",
      "properties": {
        "unpriced_models": {
          "description": "Models with no price: their tokens are counted and their cost is left out of cost_usd.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "by_model": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "reports": {
                "type": "number"
              },
              "input_tokens": {
                "type": "number"
              },
              "output_tokens": {
                "type": "number"
              },
              "cache_write_tokens": {
                "type": "number"
              },
              "cache_write_1h_tokens": {
                "type": "number"
              },
              "cache_read_tokens": {
                "type": "number"
              },
              "cost_usd": {
                "description": "In US dollars at the prices Loom had when each report arrived; null when no report could be priced.",
                "type": [
                  "number",
                  "null"
                ]
              },
              "model": {
                "type": "string"
              }
            },
            "required": [
              "reports",
              "input_tokens",
              "output_tokens",
              "cache_write_tokens",
              "cache_write_1h_tokens",
              "cache_read_tokens",
              "cost_usd",
              "model"
            ]
          }
        },
        "reports": {
          "type": "number"
        },
        "input_tokens": {
          "type": "number"
        },
        "output_tokens": {
          "type": "number"
        },
        "cache_write_tokens": {
          "type": "number"
        },
        "cache_write_1h_tokens": {
          "type": "number"
        },
        "cache_read_tokens": {
          "type": "number"
        },
        "cost_usd": {
          "description": "In US dollars at the prices Loom had when each report arrived; null when no report could be priced.",
          "type": [
            "number",
            "null"
          ]
        }
      },
      "required": [
        "unpriced_models",
        "by_model",
        "reports",
        "input_tokens",
        "output_tokens",
        "cache_write_tokens",
        "cache_write_1h_tokens",
        "cache_read_tokens",
        "cost_usd"
      ]
    },
    "RunPullRequestView": {
      "type": "object",
      "properties": {
        "number": {
          "type": "number"
        },
        "repository": {
          "type": [
            "string",
            "null"
          ]
        },
        "url": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "number",
        "repository",
        "url"
      ]
    },
    "RunReportUsageResponse": {
      "type": "object",
      "properties": {
        "run_id": {
          "type": "string"
        },
        "accepted": {
          "description": "Reports taken in this call (a report sent again counts here, and once in the totals).",
          "type": "number"
        },
        "began": {
          "description": "Whether this call began the run.",
          "type": "boolean"
        },
        "model_cost": {
          "$ref": "#/components/schemas/RunModelCost"
        }
      },
      "required": [
        "run_id",
        "accepted",
        "began",
        "model_cost"
      ]
    },
    "RunResponse": {
      "type": "object",
      "properties": {
        "run": {
          "$ref": "#/components/schemas/RunView"
        }
      },
      "required": [
        "run"
      ]
    },
    "RunView": {
      "type": "object",
      "properties": {
        "run_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "goal": {
          "type": "string"
        },
        "status": {
          "type": "string",
          "enum": [
            "failed",
            "running",
            "succeeded",
            "abandoned",
            "ended",
            "idle_closed"
          ]
        },
        "outcome": {
          "type": [
            "string",
            "null"
          ]
        },
        "memories_used": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "wrote": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "pull_requests": {
          "description": "The pull requests it named on completion.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/RunPullRequestView"
          }
        },
        "source": {
          "description": "`api` (run.begin), `mcp` (an MCP session's implicit run) or `capture` (a capture hook's usage report).",
          "type": "string",
          "enum": [
            "api",
            "mcp",
            "capture"
          ]
        },
        "started_at": {
          "type": "string"
        },
        "last_activity_at": {
          "type": "string"
        },
        "ended_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "model_cost": {
          "description": "The model usage the client reported, priced; null when none was reported (reporting off).",
          "anyOf": [
            {
              "$ref": "#/components/schemas/RunModelCost"
            },
            {
              "type": "null"
            }
          ]
        }
      },
      "required": [
        "run_id",
        "agent",
        "goal",
        "status",
        "outcome",
        "memories_used",
        "wrote",
        "pull_requests",
        "source",
        "started_at",
        "last_activity_at",
        "ended_at",
        "model_cost"
      ]
    },
    "SavedMessageHit": {
      "description": "A hit is a listed saved message with its score and the legs that found it.",
      "type": "object",
      "properties": {
        "score": {
          "description": "Reciprocal-rank-fused score in hybrid mode; cosine in semantic; BM25 in lexical.",
          "type": "number"
        },
        "matched": {
          "description": "Which legs found it.",
          "type": "array",
          "items": {
            "type": "string",
            "enum": [
              "lexical",
              "semantic"
            ]
          }
        },
        "conversation_id": {
          "type": "string"
        },
        "message_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "ts": {
          "description": "When the user saved it (the message time for rows an earlier build saved without one).",
          "type": "string"
        },
        "message_ts": {
          "description": "The message's own time in the transcript.",
          "type": "string"
        },
        "excerpt": {
          "type": "string"
        }
      },
      "required": [
        "score",
        "matched",
        "conversation_id",
        "message_id",
        "agent",
        "role",
        "ts",
        "message_ts",
        "excerpt"
      ]
    },
    "SavedMessageItem": {
      "type": "object",
      "properties": {
        "conversation_id": {
          "type": "string"
        },
        "message_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "ts": {
          "description": "When the user saved it (the message time for rows an earlier build saved without one).",
          "type": "string"
        },
        "message_ts": {
          "description": "The message's own time in the transcript.",
          "type": "string"
        },
        "excerpt": {
          "type": "string"
        }
      },
      "required": [
        "conversation_id",
        "message_id",
        "agent",
        "role",
        "ts",
        "message_ts",
        "excerpt"
      ]
    },
    "SavedStatusResponse": {
      "type": "object",
      "properties": {
        "conversation_id": {
          "type": "string"
        },
        "saved": {
          "description": "Every requested id: true when this user has it saved.",
          "type": "object",
          "additionalProperties": {
            "type": "boolean"
          }
        }
      },
      "required": [
        "conversation_id",
        "saved"
      ]
    },
    "SaveMessageResponse": {
      "type": "object",
      "properties": {
        "indexed": {
          "description": "True when the message is saved and has its vector.",
          "type": "boolean"
        },
        "reason": {
          "type": "string",
          "enum": [
            "deleted",
            "owner_mismatch",
            "unsupported_role",
            "high_sensitivity",
            "embed_failed"
          ]
        },
        "saved": {
          "description": "True when the message is stored and flagged saved (also with `embed_failed`).",
          "type": "boolean"
        },
        "conversation_id": {
          "type": "string"
        },
        "message_id": {
          "type": "string"
        },
        "saved_at": {
          "description": "When the user saved it (ISO 8601).",
          "type": "string"
        }
      },
      "required": [
        "indexed",
        "saved",
        "conversation_id",
        "message_id"
      ]
    },
    "SearchHit": {
      "type": "object",
      "properties": {
        "namespace": {
          "type": "string"
        },
        "thread_id": {
          "type": "string"
        },
        "msg_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "run_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "ts": {
          "type": "string"
        },
        "score": {
          "description": "Cosine similarity in vector mode, BM25 in lexical mode, the reciprocal-rank-fused score in hybrid mode; null in the substring fallback.",
          "type": [
            "number",
            "null"
          ]
        },
        "excerpt": {
          "description": "The first characters of the turn, or (a hit found by its words) the text around the first matched term.",
          "type": "string"
        }
      },
      "required": [
        "namespace",
        "thread_id",
        "msg_id",
        "agent",
        "role",
        "run_id",
        "user_id",
        "ts",
        "score",
        "excerpt"
      ]
    },
    "SearchMemoryResponse": {
      "type": "object",
      "properties": {
        "hits": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/MemoryHit"
          }
        }
      },
      "required": [
        "hits"
      ]
    },
    "SearchSavedMessagesResponse": {
      "type": "object",
      "properties": {
        "hits": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/SavedMessageHit"
          }
        },
        "mode": {
          "description": "The mode that answered: `lexical` when the embedder was unavailable for a hybrid or semantic call.",
          "type": "string",
          "enum": [
            "hybrid",
            "lexical",
            "semantic"
          ]
        }
      },
      "required": [
        "hits",
        "mode"
      ]
    },
    "SearchTurnsResponse": {
      "type": "object",
      "properties": {
        "hits": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/SearchHit"
          }
        },
        "mode": {
          "description": "What ran: `hybrid`, `vector` or `lexical` as asked; `lexical` for a hybrid search the embedder could not serve; `substring` for a vector search it could not serve.",
          "type": "string",
          "enum": [
            "hybrid",
            "vector",
            "lexical",
            "substring"
          ]
        }
      },
      "required": [
        "hits",
        "mode"
      ]
    },
    "SetFromMessagesResponse": {
      "type": "object",
      "properties": {
        "extraction_id": {
          "type": "string"
        },
        "deferred": {
          "description": "True when extraction runs in the background (defer).",
          "type": "boolean"
        },
        "evidence": {
          "description": "Messages kept as evidence (high ones never are).",
          "type": "number"
        },
        "skipped_high": {
          "type": "number"
        },
        "facts": {
          "description": "Facts extracted (absent while deferred); 0 with the fake LLM.",
          "type": "number"
        }
      },
      "required": [
        "extraction_id",
        "deferred",
        "evidence",
        "skipped_high"
      ]
    },
    "SetLoggingResponse": {
      "type": "object",
      "properties": {
        "namespace": {
          "type": "string"
        },
        "conversation_logging_enabled": {
          "type": "boolean"
        }
      },
      "required": [
        "namespace",
        "conversation_logging_enabled"
      ]
    },
    "SetMemoryResponse": {
      "type": "object",
      "properties": {
        "memory_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "stored": {
          "type": "boolean"
        },
        "reason": {
          "description": "`high_sensitivity`: a fact that reads as high is never stored.",
          "type": "string",
          "enum": [
            "high_sensitivity"
          ]
        }
      },
      "required": [
        "memory_id",
        "stored"
      ]
    },
    "SettingsResponse": {
      "type": "object",
      "properties": {
        "conversation_search_excerpt_chars": {
          "type": "number"
        },
        "conversation_search_min_similarity": {
          "type": "number"
        },
        "session_brief_model_calls": {
          "type": "number"
        },
        "conversation_search_default_mode": {
          "type": "string",
          "enum": [
            "hybrid",
            "vector",
            "lexical"
          ]
        },
        "tracker_duplicate_threshold": {
          "type": "number"
        }
      },
      "required": [
        "conversation_search_excerpt_chars",
        "conversation_search_min_similarity",
        "session_brief_model_calls",
        "conversation_search_default_mode",
        "tracker_duplicate_threshold"
      ]
    },
    "SymbolChangeView": {
      "type": "object",
      "properties": {
        "symbol": {
          "type": "string"
        },
        "path": {
          "type": "string"
        },
        "lines_added": {
          "type": "number"
        },
        "lines_removed": {
          "type": "number"
        },
        "source": {
          "description": "`parser` (a grammar's definition) or `header` (git's hunk header, for files no grammar reads).",
          "type": "string",
          "enum": [
            "parser",
            "header"
          ]
        },
        "sha": {
          "type": "string"
        },
        "pr_number": {
          "description": "The pull request it landed (squash \"(#N)\" or \"Merge pull request #N\"), else null.",
          "type": [
            "number",
            "null"
          ]
        },
        "subject": {
          "type": "string"
        },
        "author": {
          "type": "string"
        },
        "committed_at": {
          "type": "string"
        },
        "pr_title": {
          "description": "The PR's title, from the GitHub source; null without one.",
          "type": [
            "string",
            "null"
          ]
        },
        "runs": {
          "description": "The runs that named its PR on completion (run.complete pull_requests), oldest first.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "incidents": {
          "description": "Incidents of the tracker source that name this commit or its PR as their cause or fix (PRHIST-02), oldest start first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentLinkView"
          }
        }
      },
      "required": [
        "symbol",
        "path",
        "lines_added",
        "lines_removed",
        "source",
        "sha",
        "pr_number",
        "subject",
        "author",
        "committed_at",
        "pr_title",
        "runs",
        "incidents"
      ]
    },
    "ThreadSummaryView": {
      "type": "object",
      "properties": {
        "thread_id": {
          "type": "string"
        },
        "agents": {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "title": {
          "type": "string"
        },
        "excerpt": {
          "type": "string"
        },
        "last_role": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "user",
            "assistant",
            "system",
            "tool",
            null
          ]
        },
        "last_activity_at": {
          "type": "string"
        },
        "turn_count": {
          "type": "number"
        },
        "run_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "metadata": {
          "$ref": "#/components/schemas/JsonObject"
        }
      },
      "required": [
        "thread_id",
        "agents",
        "title",
        "excerpt",
        "last_role",
        "last_activity_at",
        "turn_count",
        "run_id",
        "metadata"
      ]
    },
    "ThreadView": {
      "type": "object",
      "properties": {
        "namespace": {
          "type": "string"
        },
        "thread_id": {
          "type": "string"
        },
        "title": {
          "type": [
            "string",
            "null"
          ]
        },
        "metadata": {
          "$ref": "#/components/schemas/JsonObject"
        },
        "run_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "created_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "last_activity_at": {
          "type": [
            "string",
            "null"
          ]
        },
        "turn_count": {
          "type": "number"
        }
      },
      "required": [
        "namespace",
        "thread_id",
        "title",
        "metadata",
        "run_id",
        "created_at",
        "last_activity_at",
        "turn_count"
      ]
    },
    "TokenInfo": {
      "description": "What `token.list` says of a token: never the token itself, nor its hash.",
      "type": "object",
      "properties": {
        "token_id": {
          "type": "string"
        },
        "label": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "viewer",
            "writer",
            "admin"
          ]
        },
        "namespaces": {
          "description": "The namespaces it acts on; [\"*\"] for every namespace.",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "read_scope": {
          "type": "string",
          "enum": [
            "all",
            "own_user",
            "own_session"
          ]
        },
        "read_user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "read_session_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "created_at": {
          "type": "string"
        },
        "last_used_at": {
          "description": "When it last authenticated a call (tracked to the minute); null if never.",
          "type": [
            "string",
            "null"
          ]
        },
        "revoked": {
          "type": "boolean"
        },
        "revoked_at": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "token_id",
        "label",
        "role",
        "namespaces",
        "read_scope",
        "read_user_id",
        "read_session_id",
        "created_at",
        "last_used_at",
        "revoked",
        "revoked_at"
      ]
    },
    "TrackerDuplicateCheckResponse": {
      "type": "object",
      "properties": {
        "candidates": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/DuplicateCandidate"
          }
        },
        "threshold": {
          "type": "number"
        },
        "considered": {
          "description": "Older issues read from the source and ranked.",
          "type": "number"
        }
      },
      "required": [
        "candidates",
        "threshold",
        "considered"
      ]
    },
    "TrackerFlakyTestsResponse": {
      "type": "object",
      "properties": {
        "tests": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/FlakyTest"
          }
        },
        "next_offset": {
          "description": "Pass as offset for the next page; null when this page is the last.",
          "type": [
            "number",
            "null"
          ]
        }
      },
      "required": [
        "tests",
        "next_offset"
      ]
    },
    "TrackerIncidentsResponse": {
      "type": "object",
      "properties": {
        "incidents": {
          "description": "Newest start first.",
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IncidentView"
          }
        },
        "next_offset": {
          "description": "Pass as offset for the next page; null when this page is the last.",
          "type": [
            "number",
            "null"
          ]
        }
      },
      "required": [
        "incidents",
        "next_offset"
      ]
    },
    "TrackerIssueLinksResponse": {
      "type": "object",
      "properties": {
        "issue": {
          "type": "string"
        },
        "links": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/IssueLink"
          }
        }
      },
      "required": [
        "issue",
        "links"
      ]
    },
    "TrackerSourceRegisterResponse": {
      "type": "object",
      "properties": {
        "registered": {
          "type": "boolean",
          "const": true
        },
        "enabled": {
          "type": "boolean"
        },
        "source": {
          "$ref": "#/components/schemas/TrackerSourceView"
        },
        "issues": {
          "description": "Rows in the issues table when registered (a reachability and mapping check).",
          "type": "number"
        }
      },
      "required": [
        "registered",
        "enabled",
        "source",
        "issues"
      ]
    },
    "TrackerSourceView": {
      "description": "The registered source as answered: never the password.",
      "type": "object",
      "properties": {
        "connection": {
          "type": "object",
          "properties": {
            "url": {
              "type": "string"
            },
            "user": {
              "type": [
                "string",
                "null"
              ]
            },
            "database": {
              "type": "string"
            },
            "password_set": {
              "type": "boolean"
            }
          },
          "required": [
            "url",
            "user",
            "database",
            "password_set"
          ]
        },
        "mapping": {
          "description": "The column mapping as registered: per table (`issues`, `pr_links`, …), its table and column names.",
          "type": "object",
          "additionalProperties": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            }
          }
        },
        "issue_url_base": {
          "type": [
            "string",
            "null"
          ]
        },
        "registered_at": {
          "type": "string"
        }
      },
      "required": [
        "connection",
        "mapping",
        "issue_url_base",
        "registered_at"
      ]
    },
    "TrackerStatusResponse": {
      "type": "object",
      "properties": {
        "enabled": {
          "type": "boolean"
        },
        "org": {
          "description": "LOOM_TRACKER_ORG, or null when unset.",
          "type": [
            "string",
            "null"
          ]
        },
        "source_registered": {
          "type": "boolean"
        },
        "reason": {
          "description": "Why the plane is off and how to turn it on; null when on.",
          "type": [
            "string",
            "null"
          ]
        },
        "source": {
          "anyOf": [
            {
              "$ref": "#/components/schemas/TrackerSourceView"
            },
            {
              "type": "null"
            }
          ]
        }
      },
      "required": [
        "enabled",
        "org",
        "source_registered",
        "reason",
        "source"
      ]
    },
    "TurnView": {
      "type": "object",
      "properties": {
        "thread_id": {
          "type": "string"
        },
        "msg_id": {
          "type": "string"
        },
        "agent": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "user",
            "assistant",
            "system",
            "tool"
          ]
        },
        "content": {
          "type": "string"
        },
        "reasoning": {
          "type": "string"
        },
        "user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "run_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "metadata": {
          "$ref": "#/components/schemas/JsonObject"
        },
        "tokens": {
          "type": [
            "number",
            "null"
          ]
        },
        "ts": {
          "type": "string"
        },
        "is_saved": {
          "type": "boolean"
        },
        "saved_at": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "thread_id",
        "msg_id",
        "agent",
        "role",
        "content",
        "reasoning",
        "user_id",
        "run_id",
        "metadata",
        "tokens",
        "ts",
        "is_saved",
        "saved_at"
      ]
    },
    "UnsaveMessageResponse": {
      "type": "object",
      "properties": {
        "found": {
          "description": "False when this user has no saved message by that id (never saved, or another user's).",
          "type": "boolean"
        },
        "removed": {
          "description": "True when the namespace does not record, so the message left the transcript too.",
          "type": "boolean"
        },
        "conversation_id": {
          "type": "string"
        },
        "message_id": {
          "type": "string"
        }
      },
      "required": [
        "found",
        "conversation_id",
        "message_id"
      ]
    },
    "WhoamiResponse": {
      "type": "object",
      "properties": {
        "token_id": {
          "type": "string"
        },
        "role": {
          "type": "string",
          "enum": [
            "viewer",
            "writer",
            "admin"
          ]
        },
        "namespaces": {
          "description": "The namespaces it acts on; [\"*\"] for every namespace (deployment-wide ops such as settings.set need that).",
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "The namespace this call resolved to (the one named, else the token's only one).",
          "type": "string"
        },
        "read_scope": {
          "type": "string",
          "enum": [
            "all",
            "own_user",
            "own_session"
          ]
        },
        "read_user_id": {
          "type": [
            "string",
            "null"
          ]
        },
        "read_session_id": {
          "type": [
            "string",
            "null"
          ]
        }
      },
      "required": [
        "token_id",
        "role",
        "namespaces",
        "namespace",
        "read_scope",
        "read_user_id",
        "read_session_id"
      ]
    }
  },
  "responses": {
    "conversation.set_logging": {
      "$ref": "#/components/schemas/SetLoggingResponse"
    },
    "conversation.get_logging": {
      "$ref": "#/components/schemas/SetLoggingResponse"
    },
    "conversation.append": {
      "$ref": "#/components/schemas/AppendTurnResponse"
    },
    "conversation.create": {
      "$ref": "#/components/schemas/CreateThreadResponse"
    },
    "conversation.update": {
      "$ref": "#/components/schemas/GetThreadResponse"
    },
    "conversation.get": {
      "$ref": "#/components/schemas/GetThreadResponse"
    },
    "conversation.list": {
      "$ref": "#/components/schemas/ListTurnsResponse"
    },
    "conversation.threads": {
      "$ref": "#/components/schemas/ListThreadsResponse"
    },
    "conversation.search": {
      "$ref": "#/components/schemas/SearchTurnsResponse"
    },
    "conversation.compact": {
      "$ref": "#/components/schemas/CompactThreadResponse"
    },
    "conversation.delete": {
      "$ref": "#/components/schemas/DeleteThreadResponse"
    },
    "conversation.save_message": {
      "$ref": "#/components/schemas/SaveMessageResponse"
    },
    "conversation.unsave_message": {
      "$ref": "#/components/schemas/UnsaveMessageResponse"
    },
    "conversation.search_saved_messages": {
      "$ref": "#/components/schemas/SearchSavedMessagesResponse"
    },
    "conversation.list_saved_messages": {
      "$ref": "#/components/schemas/ListSavedMessagesResponse"
    },
    "conversation.saved_status": {
      "$ref": "#/components/schemas/SavedStatusResponse"
    },
    "memory.set": {
      "$ref": "#/components/schemas/SetMemoryResponse"
    },
    "memory.set_from_messages": {
      "$ref": "#/components/schemas/SetFromMessagesResponse"
    },
    "memory.search": {
      "$ref": "#/components/schemas/SearchMemoryResponse"
    },
    "memory.recall": {
      "$ref": "#/components/schemas/RecallResponse"
    },
    "memory.extraction_status": {
      "$ref": "#/components/schemas/ExtractionStatusResponse"
    },
    "context.pack": {
      "$ref": "#/components/schemas/ContextPackResponse"
    },
    "observe.record": {
      "$ref": "#/components/schemas/ObserveRecordResponse"
    },
    "observe.list": {
      "$ref": "#/components/schemas/ObserveListResponse"
    },
    "observe.crystallize": {
      "$ref": "#/components/schemas/ObserveCrystallizeResponse"
    },
    "session.brief_save": {
      "$ref": "#/components/schemas/BriefSaveResponse"
    },
    "session.brief_get": {
      "$ref": "#/components/schemas/BriefGetResponse"
    },
    "session.brief_list": {
      "$ref": "#/components/schemas/BriefListResponse"
    },
    "session.brief_delete": {
      "$ref": "#/components/schemas/BriefDeleteResponse"
    },
    "erasure.request": {
      "$ref": "#/components/schemas/ErasureResponse"
    },
    "erasure.status": {
      "$ref": "#/components/schemas/ErasureResponse"
    },
    "erasure.export": {
      "$ref": "#/components/schemas/ErasureExportResponse"
    },
    "run.begin": {
      "$ref": "#/components/schemas/RunResponse"
    },
    "run.complete": {
      "$ref": "#/components/schemas/RunResponse"
    },
    "run.get": {
      "$ref": "#/components/schemas/RunResponse"
    },
    "run.list": {
      "$ref": "#/components/schemas/RunListResponse"
    },
    "run.report_usage": {
      "$ref": "#/components/schemas/RunReportUsageResponse"
    },
    "token.create": {
      "$ref": "#/components/schemas/CreateTokenResponse"
    },
    "token.revoke": {
      "$ref": "#/components/schemas/RevokeTokenResponse"
    },
    "token.list": {
      "$ref": "#/components/schemas/ListTokensResponse"
    },
    "token.whoami": {
      "$ref": "#/components/schemas/WhoamiResponse"
    },
    "settings.get": {
      "$ref": "#/components/schemas/SettingsResponse"
    },
    "settings.set": {
      "$ref": "#/components/schemas/SettingsResponse"
    },
    "code.add": {
      "$ref": "#/components/schemas/CodeAddResponse"
    },
    "code.github_sync": {
      "$ref": "#/components/schemas/CodeGithubSyncResponse"
    },
    "code.list": {
      "$ref": "#/components/schemas/CodeListResponse"
    },
    "history.path": {
      "$ref": "#/components/schemas/HistoryPathResponse"
    },
    "history.symbol": {
      "$ref": "#/components/schemas/HistorySymbolResponse"
    },
    "history.line": {
      "$ref": "#/components/schemas/HistoryLineResponse"
    },
    "history.review_brief": {
      "$ref": "#/components/schemas/HistoryReviewBriefResponse"
    },
    "history.duplicate_check": {
      "$ref": "#/components/schemas/HistoryDuplicateCheckResponse"
    },
    "history.bisect": {
      "$ref": "#/components/schemas/HistoryBisectResponse"
    },
    "tracker.status": {
      "$ref": "#/components/schemas/TrackerStatusResponse"
    },
    "tracker.source_register": {
      "$ref": "#/components/schemas/TrackerSourceRegisterResponse"
    },
    "tracker.duplicate_check": {
      "$ref": "#/components/schemas/TrackerDuplicateCheckResponse"
    },
    "tracker.issue_links": {
      "$ref": "#/components/schemas/TrackerIssueLinksResponse"
    },
    "tracker.flaky_tests": {
      "$ref": "#/components/schemas/TrackerFlakyTestsResponse"
    },
    "tracker.incidents": {
      "$ref": "#/components/schemas/TrackerIncidentsResponse"
    },
    "quarantine.list": {
      "$ref": "#/components/schemas/QuarantineListResponse"
    },
    "quarantine.retry": {
      "$ref": "#/components/schemas/QuarantineRetryResponse"
    },
    "quarantine.drop": {
      "$ref": "#/components/schemas/QuarantineDropResponse"
    }
  },
  "requests": {
    "AppendTurnRequest": {
      "description": "Appends one turn to a thread. `msg_id` makes retries idempotent (without one it is derived from thread, role and content); a turn sent again answers `stored: false, reason: \"duplicate\"`.",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "role": {
          "schema": {
            "type": "string",
            "enum": [
              "user",
              "assistant",
              "system",
              "tool"
            ]
          }
        },
        "content": {
          "description": "Up to 1 MiB; larger content is refused with 413 before validation.",
          "schema": {
            "type": "string"
          }
        },
        "msg_id": {
          "schema": {
            "type": "string"
          }
        },
        "reasoning": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "metadata": {
          "schema": {
            "$ref": "#/components/schemas/JsonObject"
          }
        },
        "tokens": {
          "description": "Stored as UInt32.",
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefDeleteRequest": {
      "description": "Deletes a session brief.",
      "fields": {
        "brief_key": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefEvent": {
      "fields": {
        "kind": {
          "schema": {
            "type": "string",
            "enum": [
              "user",
              "assistant",
              "tool",
              "error",
              "edit",
              "command",
              "read",
              "search",
              "note",
              "summary"
            ]
          }
        },
        "text": {
          "schema": {
            "type": "string"
          }
        },
        "path": {
          "description": "A file the event touched (edit, read).",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefGetRequest": {
      "description": "Reads a session brief by key, by session, or the project's latest; `revision` for an earlier one.",
      "fields": {
        "brief_key": {
          "schema": {
            "type": "string"
          }
        },
        "from_session": {
          "schema": {
            "type": "string"
          }
        },
        "project": {
          "schema": {
            "type": "string"
          }
        },
        "revision": {
          "schema": {
            "type": "number"
          }
        },
        "full": {
          "description": "Also the client's own last compaction summary, verbatim, below the brief.",
          "schema": {
            "type": "boolean"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefListRequest": {
      "description": "The namespace's briefs (or the caller's own), newest first, one line each.",
      "fields": {
        "mine_only": {
          "schema": {
            "type": "boolean"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefSaveRequest": {
      "description": "Saves a session brief: sections written by the agent, or events condensed on the server (by the LLM, else the deterministic builder).",
      "fields": {
        "brief_key": {
          "description": "Empty: `auto/<project>/<branch>` when both are known, else `session/<session_id>`.",
          "schema": {
            "type": "string"
          }
        },
        "project": {
          "schema": {
            "type": "string"
          }
        },
        "branch": {
          "schema": {
            "type": "string"
          }
        },
        "session_id": {
          "schema": {
            "type": "string"
          }
        },
        "events": {
          "description": "What happened since the last save, condensed on the server.",
          "schema": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/BriefEvent"
            }
          }
        },
        "sections": {
          "description": "Sections the calling agent wrote itself.",
          "schema": {
            "$ref": "#/components/schemas/BriefSectionsInput"
          }
        },
        "event_cursor": {
          "description": "The client's position in its event stream: a save repeating the last (session, cursor) is a retry.",
          "schema": {
            "type": "string"
          }
        },
        "if_revision": {
          "description": "Compare-and-set: applied only when the brief is at this revision (0: it does not exist yet).",
          "schema": {
            "type": "number"
          }
        },
        "use_llm": {
          "description": "false: never call a model for the events.",
          "schema": {
            "type": "boolean"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "BriefSectionsInput": {
      "fields": {
        "goal": {
          "schema": {
            "type": "string"
          }
        },
        "status": {
          "schema": {
            "type": "string"
          }
        },
        "decisions": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "dead_ends": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "done": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "open_questions": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "next_steps": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "key_files": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "constraints": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "pointers": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        }
      }
    },
    "CiRunsMapping": {
      "description": "CI runs: one row per test result.",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "test": {
          "schema": {
            "type": "string"
          }
        },
        "commit": {
          "schema": {
            "type": "string"
          }
        },
        "status": {
          "schema": {
            "type": "string"
          }
        },
        "run_at": {
          "schema": {
            "type": "string"
          }
        },
        "fail_values": {
          "description": "Status values that mean failed (compared case-insensitively); default fail, failed, failure, error.",
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "pass_values": {
          "description": "Status values that mean passed; default pass, passed, success, ok.",
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        }
      }
    },
    "CodeAddRequest": {
      "fields": {
        "path": {
          "description": "A clone on the machine that runs the gateway (a bare clone will do).",
          "schema": {
            "type": "string"
          }
        },
        "name": {
          "description": "Defaults to the last part of the path.",
          "schema": {
            "type": "string"
          }
        },
        "ref": {
          "description": "The branch, tag or commit to index up to; HEAD when omitted.",
          "schema": {
            "type": "string"
          }
        },
        "wait": {
          "description": "Wait for the ingest to finish before answering (the CLI polls code.list instead).",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CodeGithubSyncRequest": {
      "description": "`code.github_sync`: the GitHub source of a repository already added with `code.add`: its merged (and open) pull requests, their reviews and review comments, and its issues, through GitHub's REST API. Rerun it to take what is new, or to resume a paused sync.",
      "fields": {
        "repository": {
          "description": "The repository's name in Loom (as `code.add` named it).",
          "schema": {
            "type": "string"
          }
        },
        "github": {
          "description": "The repository on GitHub, `owner/name`.",
          "schema": {
            "type": "string"
          }
        },
        "token": {
          "description": "A token that can read the repository (a fine-grained token needs read access to Pull requests, Issues and Metadata). Held in the syncing gateway's memory while the sync runs and never stored, logged or answered. Without it the gateway's LOOM_GITHUB_TOKEN is used (only towards LOOM_GITHUB_API_URL), else none (public repositories, 60 requests an hour).",
          "schema": {
            "type": "string"
          }
        },
        "api_url": {
          "description": "GitHub Enterprise Server's API (`https://github.example.com/api/v3`); default LOOM_GITHUB_API_URL. Only LOOM_GITHUB_API_URL and the APIs in the gateway's LOOM_GITHUB_API_URLS are called: any other answers 400 naming api_url.",
          "schema": {
            "type": "string"
          }
        },
        "wait": {
          "description": "Wait for the sync to finish (or pause) before answering.",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CodeListRequest": {
      "fields": {
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CommitsMapping": {
      "description": "Commits whose messages may say \"Fixes #N\".",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "sha": {
          "schema": {
            "type": "string"
          }
        },
        "message": {
          "schema": {
            "type": "string"
          }
        },
        "committed_at": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CompactThreadRequest": {
      "description": "Has the configured LLM summarise the oldest turns of the calling agent's thread into one `system` turn, keeping the last `keep_recent` turns.",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "keep_recent": {
          "description": "The newest turns never summarised (default 10).",
          "schema": {
            "type": "number"
          }
        },
        "min_to_compact": {
          "description": "Fewer new turns than this in the window: nothing is done (default 4).",
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ContextPackRequest": {
      "description": "context.pack: what Loom knows that bears on `query`, for one (user, session) scope, as hits and as one text a model can take as context. What a Session's resume reads.",
      "fields": {
        "query": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "description": "Only this user's facts and evidence.",
          "schema": {
            "type": "string"
          }
        },
        "session_id": {
          "description": "The session: its thread's turns are searched too (the conversation section needs it).",
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "description": "Hits per section (default 8).",
          "schema": {
            "type": "number"
          }
        },
        "max_chars": {
          "description": "Most characters of `pack` (default 8,000).",
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CreateThreadRequest": {
      "description": "Creates a thread (its id generated when omitted), with a title and metadata; 409 when it exists.",
      "fields": {
        "thread_id": {
          "description": "Generated when omitted.",
          "schema": {
            "type": "string"
          }
        },
        "title": {
          "schema": {
            "type": "string"
          }
        },
        "metadata": {
          "schema": {
            "$ref": "#/components/schemas/JsonObject"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "CreateTokenRequest": {
      "description": "Creates a token for a namespace and role (optionally bounded to one user or session). The secret is shown once.",
      "fields": {
        "namespace": {
          "description": "The namespace the new token acts on; \"*\" for every namespace, which only a token for every namespace may grant (deployment-wide ops such as settings.set need one).",
          "schema": {
            "type": "string"
          }
        },
        "role": {
          "schema": {
            "type": "string",
            "enum": [
              "viewer",
              "writer",
              "admin"
            ]
          }
        },
        "read_scope": {
          "schema": {
            "type": "string",
            "enum": [
              "all",
              "own_user",
              "own_session"
            ]
          }
        },
        "read_user_id": {
          "schema": {
            "type": "string"
          }
        },
        "read_session_id": {
          "description": "With read_scope own_session: the one session the token acts for.",
          "schema": {
            "type": "string"
          }
        },
        "label": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "DeleteThreadRequest": {
      "description": "Deletes the calling agent's turns of a thread (tombstoned, gone from search); `confirm_thread_id` must repeat `thread_id`.",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "confirm_thread_id": {
          "description": "Must equal `thread_id`: a delete names its thread twice.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "DuplicateLinksMapping": {
      "description": "The tracker's own duplicate links, when they live in a table of their own (a \"marked as duplicate\" event log, an issue-link table): one row per (duplicate, original). With `linked_at` a check sees only links recorded before the new issue was opened.",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "issue": {
          "description": "The issue closed as a duplicate.",
          "schema": {
            "type": "string"
          }
        },
        "duplicate_of": {
          "description": "The issue it duplicates (its original).",
          "schema": {
            "type": "string"
          }
        },
        "linked_at": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ErasureExportRequest": {
      "description": "Exports a person's (or the namespace's) transcript turns, a page at a time.",
      "fields": {
        "user_id": {
          "description": "One person's turns in the caller's namespaces; without it, every turn of the namespace.",
          "schema": {
            "type": "string"
          }
        },
        "include_tombstoned": {
          "description": "Tombstoned turns are included unless this is false.",
          "schema": {
            "type": "boolean"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "cursor": {
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ErasureRequest": {
      "description": "Erase one person's data (user_id) in the caller's namespaces, or whole namespaces (namespace_list).",
      "fields": {
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "namespace_list": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "purge": {
          "description": "With namespace_list only: remove the rows from disk instead of tombstoning them.",
          "schema": {
            "type": "boolean"
          }
        },
        "wait": {
          "description": "true (the default): answer when the erasure is done. false: answer `pending` once the request is stored, and let `erasure.status` tell when it is done. Either way the request is stored first, so a crash part-way does not lose it: any replica finishes it.",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ErasureStatusRequest": {
      "description": "Where an erasure request stands.",
      "fields": {
        "erasure_id": {
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ExtractionStatusRequest": {
      "description": "Where a deferred extraction stands: pending, done or failed.",
      "fields": {
        "extraction_id": {
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "GetLoggingRequest": {
      "description": "The recording switch as it stands (the dashboard's \"Record conversations\" switch reads it).",
      "fields": {
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "GetSettingsRequest": {
      "description": "The live settings.",
      "fields": {}
    },
    "GetThreadRequest": {
      "description": "Reads a thread, and with `include_messages` a page of its turns (follow `next_cursor`).",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "include_messages": {
          "schema": {
            "type": "boolean"
          }
        },
        "order": {
          "schema": {
            "type": "string",
            "enum": [
              "asc",
              "desc"
            ]
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "cursor": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistoryBisectRequest": {
      "fields": {
        "description": {
          "description": "The regression, as a person would report it.",
          "schema": {
            "type": "string"
          }
        },
        "good": {
          "description": "The last commit known good (excluded) and the first known bad (included), sha or prefix.",
          "schema": {
            "type": "string"
          }
        },
        "bad": {
          "schema": {
            "type": "string"
          }
        },
        "since": {
          "description": "Or a time window of commit times.",
          "schema": {
            "type": "string"
          }
        },
        "until": {
          "schema": {
            "type": "string"
          }
        },
        "paths": {
          "description": "Paths (files or directories) and symbols the caller suspects.",
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "symbols": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistoryDuplicateCheckRequest": {
      "fields": {
        "title": {
          "description": "At least one of title, description and diff.",
          "schema": {
            "type": "string"
          }
        },
        "description": {
          "schema": {
            "type": "string"
          }
        },
        "diff": {
          "description": "A unified diff (`git diff` output) of the proposed change.",
          "schema": {
            "type": "string"
          }
        },
        "before": {
          "description": "Only changes older than this indexed commit (sha or prefix): \"was this done before then?\".",
          "schema": {
            "type": "string"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistoryLineRequest": {
      "fields": {
        "path": {
          "schema": {
            "type": "string"
          }
        },
        "line": {
          "description": "1-based, in the file as of `ref`.",
          "schema": {
            "type": "number"
          }
        },
        "ref": {
          "description": "A commit of the indexed history (sha or prefix); the newest indexed commit when omitted.",
          "schema": {
            "type": "string"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistoryPathRequest": {
      "fields": {
        "path": {
          "description": "A file (renames followed back) or a directory (its files' changes).",
          "schema": {
            "type": "string"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistoryReviewBriefRequest": {
      "fields": {
        "pr_number": {
          "schema": {
            "type": "number"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "HistorySymbolRequest": {
      "fields": {
        "symbol": {
          "description": "`query`, or qualified: `ClickHouseClient.query`.",
          "schema": {
            "type": "string"
          }
        },
        "path": {
          "description": "Only changes to files under this path.",
          "schema": {
            "type": "string"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "IncidentsMapping": {
      "description": "Incidents: one row per incident, with the PRs and commits that caused or fixed it. A link column may hold one value (`1234`, `#1234`, `acme/app#1234`, a PR or commit URL, a sha or a prefix of at least 7 hex digits), several separated by commas or spaces, or an Array of them.",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "id": {
          "schema": {
            "type": "string"
          }
        },
        "title": {
          "schema": {
            "type": "string"
          }
        },
        "started_at": {
          "schema": {
            "type": "string"
          }
        },
        "resolved_at": {
          "schema": {
            "type": "string"
          }
        },
        "severity": {
          "schema": {
            "type": "string"
          }
        },
        "status": {
          "schema": {
            "type": "string"
          }
        },
        "summary": {
          "description": "A text column: what happened (the post-mortem's summary).",
          "schema": {
            "type": "string"
          }
        },
        "caused_by_pr": {
          "schema": {
            "type": "string"
          }
        },
        "caused_by_commit": {
          "schema": {
            "type": "string"
          }
        },
        "fixed_by_pr": {
          "schema": {
            "type": "string"
          }
        },
        "fixed_by_commit": {
          "schema": {
            "type": "string"
          }
        },
        "repo": {
          "description": "A text column: the repository a row's incident is about (`acme/app` or a Loom repository name). It scopes the row's bare PR numbers (`1234`, `#1234`) to that repository; a PR ref that names its own repository keeps it. Without it, a bare number names that PR in every repository.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "IssuesMapping": {
      "description": "The issues table: one row per issue.",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "id": {
          "schema": {
            "type": "string"
          }
        },
        "title": {
          "schema": {
            "type": "string"
          }
        },
        "body": {
          "schema": {
            "type": "string"
          }
        },
        "created_at": {
          "schema": {
            "type": "string"
          }
        },
        "state": {
          "schema": {
            "type": "string"
          }
        },
        "closed_at": {
          "schema": {
            "type": "string"
          }
        },
        "duplicate_of": {
          "description": "The issue this one was closed as a duplicate of (empty or null when none).",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ListSavedMessagesRequest": {
      "description": "A user's saved messages, newest saved first.",
      "fields": {
        "conversation_id": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "description": "Default 50, at most 200.",
          "schema": {
            "type": "number"
          }
        },
        "cursor": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "description": "Required unless the token is pinned to one user (`--read-user-id`), which it then must equal.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ListThreadsRequest": {
      "description": "The threads active in the last `window_days`, most recent first, each with its last turn's excerpt.",
      "fields": {
        "window_days": {
          "schema": {
            "type": "number"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "offset": {
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ListTokensRequest": {
      "description": "The tokens the caller could revoke: id, label, role, namespaces, read scope, created and last used. Never a secret.",
      "fields": {
        "include_revoked": {
          "description": "Also the revoked tokens (default: live tokens only).",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ListTurnsRequest": {
      "description": "A page of a thread's turns, oldest first unless `order` is `desc`; follow `next_cursor` for the rest.",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "order": {
          "schema": {
            "type": "string",
            "enum": [
              "asc",
              "desc"
            ]
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "cursor": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "MessageInput": {
      "fields": {
        "role": {
          "schema": {
            "type": "string",
            "enum": [
              "user",
              "assistant",
              "system",
              "tool"
            ]
          }
        },
        "content": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ObservationInput": {
      "description": "One tool action of a session, as an episodic observation: which tool, a one-line summary of what it was asked to do (a command, a file, a query), and whether it failed. Never the tool's output. `obs_id` is the client's id for the action (Claude Code's tool_use id): recording it again changes nothing.",
      "fields": {
        "obs_id": {
          "schema": {
            "type": "string"
          }
        },
        "tool": {
          "schema": {
            "type": "string"
          }
        },
        "summary": {
          "schema": {
            "type": "string"
          }
        },
        "path": {
          "description": "The file the action touched, when it names one.",
          "schema": {
            "type": "string"
          }
        },
        "outcome": {
          "schema": {
            "type": "string",
            "enum": [
              "ok",
              "error",
              "unknown"
            ]
          }
        },
        "ts": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ObserveCrystallizeRequest": {
      "description": "Turns a session's observations into facts.",
      "fields": {
        "session_id": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "defer": {
          "description": "Answer at once and extract in the background (as memory.set_from_messages defer).",
          "schema": {
            "type": "boolean"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ObserveListRequest": {
      "description": "A session's observations, newest first.",
      "fields": {
        "session_id": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "outcome": {
          "description": "Only actions that failed (`error`) or succeeded (`ok`).",
          "schema": {
            "type": "string",
            "enum": [
              "ok",
              "error",
              "unknown"
            ]
          }
        },
        "since": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "ObserveRecordRequest": {
      "description": "Records a session's tool observations (a command, a file read, an error); ones that read as high are skipped.",
      "fields": {
        "session_id": {
          "schema": {
            "type": "string"
          }
        },
        "observations": {
          "schema": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/ObservationInput"
            }
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "PrLinksMapping": {
      "description": "The tracker's own link table: one row per (issue, pull request) link.",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "issue": {
          "schema": {
            "type": "string"
          }
        },
        "pr": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "PullRequestsMapping": {
      "description": "Pull requests whose bodies may say \"Fixes #N\".",
      "fields": {
        "table": {
          "schema": {
            "type": "string"
          }
        },
        "number": {
          "schema": {
            "type": "string"
          }
        },
        "body": {
          "schema": {
            "type": "string"
          }
        },
        "title": {
          "schema": {
            "type": "string"
          }
        },
        "merged_at": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "QuarantineDropRequest": {
      "description": "Remove each row from the quarantine without storing it.",
      "fields": {
        "ids": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "QuarantineListRequest": {
      "description": "Rows of the append path that storage refused on their own (poison rows), set aside so that the rows written with them were stored. Deployment-wide: an every-namespace admin token.",
      "fields": {
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "include_rows": {
          "description": "Include each row as JSON text (it holds the turn's text).",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "QuarantineRetryRequest": {
      "description": "Insert each row again; one the engine takes is stored and leaves the quarantine.",
      "fields": {
        "ids": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RecallRequest": {
      "description": "The evidence kept from conversations, by time and query.",
      "fields": {
        "query": {
          "description": "Words to find (lexical, BM25); without it, the newest evidence in the window.",
          "schema": {
            "type": "string"
          }
        },
        "since": {
          "description": "ISO 8601 bounds of the time window.",
          "schema": {
            "type": "string"
          }
        },
        "until": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RevokeTokenRequest": {
      "description": "Revokes a token; calls with it answer 401 from then on.",
      "fields": {
        "token_id": {
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunBeginRequest": {
      "description": "Begins a run: a piece of work with a goal, which turns, memories and usage can be linked to.",
      "fields": {
        "goal": {
          "schema": {
            "type": "string"
          }
        },
        "run_id": {
          "description": "The client's own id for the run; generated when absent.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunCompleteRequest": {
      "description": "Completes a run with its status and outcome.",
      "fields": {
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "status": {
          "schema": {
            "type": "string",
            "enum": [
              "failed",
              "succeeded",
              "abandoned",
              "ended"
            ]
          }
        },
        "outcome": {
          "schema": {
            "type": "string"
          }
        },
        "memories_used": {
          "description": "The memories the agent relied on (memory ids).",
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "wrote": {
          "description": "What the agent wrote: files, PRs, memories, briefs (free-form references).",
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "pull_requests": {
          "description": "The pull requests the run opened or wrote to (history answers link them back to the run).",
          "schema": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/RunPullRequest"
            }
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunGetRequest": {
      "description": "Reads a run, with its model cost.",
      "fields": {
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunListRequest": {
      "description": "The runs of an agent (`*`: all), newest first, with the page's model cost.",
      "fields": {
        "status": {
          "schema": {
            "type": "string",
            "enum": [
              "failed",
              "running",
              "succeeded",
              "abandoned",
              "ended",
              "idle_closed"
            ]
          }
        },
        "since": {
          "description": "Only runs begun at or after this instant (ISO 8601).",
          "schema": {
            "type": "string"
          }
        },
        "pull_request": {
          "description": "Only runs that named this pull request (with `repository`: in that repository, or in none named).",
          "schema": {
            "type": "number"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "offset": {
          "schema": {
            "type": "number"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunPullRequest": {
      "description": "A pull request a run opened or wrote to. `repository` is the repository's name in Loom's code index (`loom code add --name`), so history answers can link the PR back to the run; without it the PR number matches in any repository of the namespace.",
      "fields": {
        "number": {
          "schema": {
            "type": "number"
          }
        },
        "repository": {
          "schema": {
            "type": "string"
          }
        },
        "url": {
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "RunReportUsageRequest": {
      "description": "Reports the model calls made for a run (each counted once by `usage_id`); they give the run its cost.",
      "fields": {
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "reports": {
          "schema": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/UsageReport"
            }
          }
        },
        "goal": {
          "description": "Begins the run (source `capture`) with this goal when it does not exist yet; without it an unknown run is a 404.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SavedStatusRequest": {
      "description": "Which of up to 500 messages of a conversation a user has saved.",
      "fields": {
        "conversation_id": {
          "schema": {
            "type": "string"
          }
        },
        "message_ids": {
          "schema": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "user_id": {
          "description": "Required unless the token is pinned to one user (`--read-user-id`), which it then must equal.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SaveMessageRequest": {
      "description": "Saves a message for a user (indexed for saved-message search), storing it first when it is not yet in the transcript.",
      "fields": {
        "conversation_id": {
          "description": "The thread the message belongs to.",
          "schema": {
            "type": "string"
          }
        },
        "message_id": {
          "description": "The message's `msg_id` in that thread.",
          "schema": {
            "type": "string"
          }
        },
        "role": {
          "description": "For a message the transcript does not hold yet: its role and text.",
          "schema": {
            "type": "string",
            "enum": [
              "user",
              "assistant",
              "system",
              "tool"
            ]
          }
        },
        "content": {
          "description": "Up to 1 MiB, like an append.",
          "schema": {
            "type": "string"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "description": "Required unless the token is pinned to one user (`--read-user-id`), which it then must equal.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SearchMemoryRequest": {
      "description": "Searches facts by meaning.",
      "fields": {
        "query": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SearchSavedMessagesRequest": {
      "description": "Searches a user's saved messages by meaning and by words.",
      "fields": {
        "query": {
          "schema": {
            "type": "string"
          }
        },
        "search_mode": {
          "schema": {
            "type": "string",
            "enum": [
              "hybrid",
              "lexical",
              "semantic"
            ]
          }
        },
        "lexical_weight": {
          "description": "The BM25 leg's share in hybrid mode, 0-1 (default 0.5).",
          "schema": {
            "type": "number"
          }
        },
        "conversation_id": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "user_id": {
          "description": "Required unless the token is pinned to one user (`--read-user-id`), which it then must equal.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SearchTurnsRequest": {
      "description": "Searches turns by meaning and by words (`hybrid`, the default), or one of them (`vector`, `lexical`), over every namespace the token can read unless `namespace_scope` is `namespace`.",
      "fields": {
        "query": {
          "schema": {
            "type": "string"
          }
        },
        "search_mode": {
          "schema": {
            "type": "string",
            "enum": [
              "hybrid",
              "vector",
              "lexical"
            ]
          }
        },
        "lexical_weight": {
          "description": "The BM25 leg's share in hybrid mode, 0-1 (default 0.8); 0 ranks by the vector leg alone, 1 by BM25 alone.",
          "schema": {
            "type": "number"
          }
        },
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "role": {
          "schema": {
            "type": "string",
            "enum": [
              "user",
              "assistant",
              "system"
            ]
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace_scope": {
          "description": "`all_mine` (default) spans every namespace the token can read; `namespace` only the one named.",
          "schema": {
            "type": "string",
            "enum": [
              "all_mine",
              "namespace"
            ]
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SetFromMessagesRequest": {
      "description": "Turns a conversation's messages into facts (kept as evidence); with `defer`, in the background.",
      "fields": {
        "messages": {
          "schema": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/MessageInput"
            }
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "session_id": {
          "description": "The client's session (a Claude Code session id): kept with the evidence.",
          "schema": {
            "type": "string"
          }
        },
        "defer": {
          "description": "Answer at once and extract in the background (the plugins at session end).",
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SetLoggingRequest": {
      "description": "Switches the namespace's recording of conversations on or off (the owner's switch). Off: appends are accepted and answer `stored: false, reason: \"logging_disabled\"`.",
      "fields": {
        "enabled": {
          "schema": {
            "type": "boolean"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SetMemoryRequest": {
      "description": "Stores one fact (never a text that reads as high).",
      "fields": {
        "text": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "SetSettingRequest": {
      "description": "Changes one live setting, for every namespace, without a restart.",
      "fields": {
        "key": {
          "schema": {
            "type": "string",
            "enum": [
              "conversation_search_excerpt_chars",
              "conversation_search_min_similarity",
              "session_brief_model_calls",
              "conversation_search_default_mode",
              "tracker_duplicate_threshold"
            ]
          }
        },
        "value": {
          "description": "A number, or for `conversation_search_default_mode` a mode's name; the range is checked per key.",
          "schema": {
            "type": [
              "string",
              "number"
            ]
          }
        }
      }
    },
    "TrackerConnection": {
      "fields": {
        "url": {
          "schema": {
            "type": "string"
          }
        },
        "user": {
          "schema": {
            "type": "string"
          }
        },
        "password": {
          "description": "Stored to connect; never logged and never answered.",
          "schema": {
            "type": "string"
          }
        },
        "database": {
          "description": "The database holding the mapped tables.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerDuplicateCheckRequest": {
      "fields": {
        "title": {
          "description": "The new issue's title; required unless `issue` names one already in the tracker.",
          "schema": {
            "type": "string"
          }
        },
        "body": {
          "schema": {
            "type": "string"
          }
        },
        "issue": {
          "description": "An issue already in the tracker, checked against the issues opened before it (its title and body are read from the source).",
          "schema": {
            "type": "string"
          }
        },
        "created_before": {
          "description": "Only issues opened before this instant are candidates (the new issue's own time); default: all.",
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerFlakyTestsRequest": {
      "fields": {
        "since": {
          "description": "Only runs at or after this instant.",
          "schema": {
            "type": "string"
          }
        },
        "test": {
          "description": "Only this test.",
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "offset": {
          "schema": {
            "type": "number"
          }
        },
        "runs": {
          "description": "Latest runs shown per test.",
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerIncidentsRequest": {
      "fields": {
        "since": {
          "description": "Only incidents that started at or after this instant.",
          "schema": {
            "type": "string"
          }
        },
        "until": {
          "description": "Only incidents that started at or before this instant.",
          "schema": {
            "type": "string"
          }
        },
        "pr": {
          "description": "Only incidents linked (caused or fixed) to this pull request.",
          "schema": {
            "type": "number"
          }
        },
        "repository": {
          "description": "Only incidents of this repository (`acme/app` or a Loom repository name, compared case-insensitively): those whose `repo` column or PR refs name it, and those that name no repository at all (a bare PR number names that PR in every repository). With `pr`, the PR ref must name this repository or none.",
          "schema": {
            "type": "string"
          }
        },
        "commit": {
          "description": "Only incidents linked to this commit (a sha or a prefix of at least 7 hex digits).",
          "schema": {
            "type": "string"
          }
        },
        "severity": {
          "description": "Only this severity or status (compared case-insensitively).",
          "schema": {
            "type": "string"
          }
        },
        "status": {
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "offset": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerIssueLinksRequest": {
      "fields": {
        "issue": {
          "description": "The issue's id as the tracker writes it (e.g. \"1234\").",
          "schema": {
            "type": "string"
          }
        },
        "limit": {
          "schema": {
            "type": "number"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerMapping": {
      "fields": {
        "issues": {
          "schema": {
            "$ref": "#/components/schemas/IssuesMapping"
          }
        },
        "pr_links": {
          "schema": {
            "$ref": "#/components/schemas/PrLinksMapping"
          }
        },
        "pull_requests": {
          "schema": {
            "$ref": "#/components/schemas/PullRequestsMapping"
          }
        },
        "commits": {
          "schema": {
            "$ref": "#/components/schemas/CommitsMapping"
          }
        },
        "ci_runs": {
          "schema": {
            "$ref": "#/components/schemas/CiRunsMapping"
          }
        },
        "duplicate_links": {
          "description": "Where recorded duplicate links live besides `issues.duplicate_of` (either, both or neither).",
          "schema": {
            "$ref": "#/components/schemas/DuplicateLinksMapping"
          }
        },
        "incidents": {
          "schema": {
            "$ref": "#/components/schemas/IncidentsMapping"
          }
        }
      }
    },
    "TrackerSourceRegisterRequest": {
      "fields": {
        "connection": {
          "schema": {
            "$ref": "#/components/schemas/TrackerConnection"
          }
        },
        "mapping": {
          "schema": {
            "$ref": "#/components/schemas/TrackerMapping"
          }
        },
        "issue_url_base": {
          "description": "Base URL of the tracker's issue pages, for links in answers (e.g. https://github.com/acme/app/issues/).",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "TrackerStatusRequest": {
      "fields": {
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "UnsaveMessageRequest": {
      "description": "Removes a message from a user's saved messages; doing it again changes nothing.",
      "fields": {
        "conversation_id": {
          "schema": {
            "type": "string"
          }
        },
        "message_id": {
          "schema": {
            "type": "string"
          }
        },
        "user_id": {
          "description": "Required unless the token is pinned to one user (`--read-user-id`), which it then must equal.",
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "UpdateThreadRequest": {
      "description": "Changes a thread's title, metadata or run; answers the thread.",
      "fields": {
        "thread_id": {
          "schema": {
            "type": "string"
          }
        },
        "title": {
          "schema": {
            "type": "string"
          }
        },
        "metadata": {
          "description": "Replaces the thread's metadata as a whole (and with it any `title_refused` mark).",
          "schema": {
            "$ref": "#/components/schemas/JsonObject"
          }
        },
        "run_id": {
          "schema": {
            "type": "string"
          }
        },
        "agent": {
          "description": "The agent writing or reading; \"default\" when omitted. Reads accept \"*\" for every agent.",
          "schema": {
            "type": "string"
          }
        },
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    },
    "UsageReport": {
      "description": "One model call's token usage, as a client reports it (the Claude Code plugin, from the session transcript). `usage_id` is the client's id for the call: a report sent again replaces the earlier one and is never counted twice.",
      "fields": {
        "usage_id": {
          "schema": {
            "type": "string"
          }
        },
        "model": {
          "schema": {
            "type": "string"
          }
        },
        "ts": {
          "description": "When the call was made (ISO 8601); the report's arrival when absent.",
          "schema": {
            "type": "string"
          }
        },
        "input_tokens": {
          "description": "Input tokens read from neither cache.",
          "schema": {
            "type": "number"
          }
        },
        "output_tokens": {
          "schema": {
            "type": "number"
          }
        },
        "cache_write_tokens": {
          "description": "Input tokens written to the 5-minute prompt cache.",
          "schema": {
            "type": "number"
          }
        },
        "cache_write_1h_tokens": {
          "description": "Input tokens written to the 1-hour prompt cache (priced higher).",
          "schema": {
            "type": "number"
          }
        },
        "cache_read_tokens": {
          "schema": {
            "type": "number"
          }
        }
      }
    },
    "WhoamiRequest": {
      "description": "`token.whoami`: what the calling token is, so a client (the dashboard) can offer only what it may do.",
      "fields": {
        "namespace": {
          "description": "Defaults to the token's namespace when the token has exactly one.",
          "schema": {
            "type": "string"
          }
        }
      }
    }
  }
};
