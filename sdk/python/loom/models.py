"""
The answers of the ops this SDK calls, as dataclasses. Field names are the API's, exactly (the
wire is defined once, in libs/contracts of the Loom repository). Fields Loom adds later are
ignored, so an older SDK keeps reading a newer Loom.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Type, TypeVar

T = TypeVar("T")

TurnRole = Literal["user", "assistant", "system", "tool"]
SearchMode = Literal["hybrid", "vector", "lexical"]
SavedSearchMode = Literal["hybrid", "semantic", "lexical"]
RunStatus = Literal["running", "succeeded", "failed", "abandoned", "ended", "idle_closed"]
CompletedRunStatus = Literal["succeeded", "failed", "abandoned", "ended"]
BriefAuthor = Literal["llm", "deterministic", "model"]


def from_json(cls: Type[T], data: Any) -> T:
    """Builds ``cls`` (a dataclass of this module) from a decoded JSON answer, recursively."""
    return typing.cast(T, _convert(cls, data))


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin is typing.Union:  # Optional[X]
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(inner[0], value) if len(inner) == 1 else value
    if origin in (list, List):
        (item,) = typing.get_args(tp) or (Any,)
        return [_convert(item, v) for v in value]
    if origin in (dict, Dict):
        args = typing.get_args(tp)
        item = args[1] if len(args) == 2 else Any
        return {k: _convert(item, v) for k, v in value.items()}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type) and isinstance(value, dict):
        hints = typing.get_type_hints(tp)
        kwargs = {f.name: _convert(hints[f.name], value[f.name]) for f in dataclasses.fields(tp) if f.name in value}
        return tp(**kwargs)
    return value


# ---- conversations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendTurnResponse:
    """conversation.append: ``stored`` false with reason ``logging_disabled``, ``duplicate`` or ``deleted``."""

    stored: bool
    thread_id: str
    msg_id: str
    reason: Optional[str] = None


@dataclass(frozen=True)
class TurnView:
    thread_id: str
    msg_id: str
    agent: str
    role: str
    content: str
    ts: str
    reasoning: str = ""
    user_id: Optional[str] = None
    run_id: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    tokens: Optional[int] = None
    is_saved: bool = False
    saved_at: Optional[str] = None


@dataclass(frozen=True)
class ThreadView:
    namespace: str
    thread_id: str
    turn_count: int
    title: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    run_id: Optional[str] = None
    created_at: Optional[str] = None
    last_activity_at: Optional[str] = None


@dataclass(frozen=True)
class GetThreadResponse:
    thread: ThreadView
    messages: Optional[List[TurnView]] = None
    next_cursor: Optional[str] = None


@dataclass(frozen=True)
class ListTurnsResponse:
    messages: List[TurnView]
    next_cursor: Optional[str] = None


@dataclass(frozen=True)
class ThreadSummaryView:
    thread_id: str
    agents: List[str]
    title: str
    excerpt: str
    last_activity_at: str
    turn_count: int
    last_role: Optional[str] = None
    run_id: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ListThreadsResponse:
    threads: List[ThreadSummaryView]


@dataclass(frozen=True)
class SearchHit:
    namespace: str
    thread_id: str
    msg_id: str
    agent: str
    role: str
    ts: str
    excerpt: str
    run_id: Optional[str] = None
    user_id: Optional[str] = None
    #: cosine (vector), BM25 (lexical), fused rank score (hybrid); None in the substring fallback
    score: Optional[float] = None


@dataclass(frozen=True)
class SearchTurnsResponse:
    hits: List[SearchHit]
    #: what ran: ``hybrid``, ``vector``, ``lexical`` or ``substring``
    mode: str


@dataclass(frozen=True)
class SetLoggingResponse:
    namespace: str
    conversation_logging_enabled: bool


# ---- saved messages ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SaveMessageResponse:
    indexed: bool
    saved: bool
    conversation_id: str
    message_id: str
    #: ``owner_mismatch``, ``deleted``, ``unsupported_role``, ``high_sensitivity`` or ``embed_failed``
    reason: Optional[str] = None
    saved_at: Optional[str] = None


@dataclass(frozen=True)
class UnsaveMessageResponse:
    found: bool
    conversation_id: str
    message_id: str
    removed: Optional[bool] = None


@dataclass(frozen=True)
class SavedMessageItem:
    conversation_id: str
    message_id: str
    agent: str
    role: str
    #: when the user saved it
    ts: str
    message_ts: str
    excerpt: str


@dataclass(frozen=True)
class SavedMessageHit(SavedMessageItem):
    score: float = 0.0
    #: which legs found it: ``semantic``, ``lexical``
    matched: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class SearchSavedMessagesResponse:
    hits: List[SavedMessageHit]
    mode: str


@dataclass(frozen=True)
class ListSavedMessagesResponse:
    messages: List[SavedMessageItem]
    next_cursor: Optional[str] = None


@dataclass(frozen=True)
class SavedStatusResponse:
    conversation_id: str
    saved: Dict[str, bool]


# ---- memory and context -----------------------------------------------------------------------


@dataclass(frozen=True)
class SetFromMessagesResponse:
    extraction_id: str
    deferred: bool
    evidence: int
    skipped_high: int
    facts: Optional[int] = None


@dataclass(frozen=True)
class ExtractionStatusResponse:
    extraction_id: str
    #: ``pending``, ``done`` or ``failed``
    status: str
    attempts: int
    created_at: str
    updated_at: str
    facts: Optional[int] = None
    last_error: Optional[str] = None
    next_attempt_at: Optional[str] = None


@dataclass(frozen=True)
class MemoryHit:
    memory_id: str
    text: str
    source: str
    score: float
    created_at: str
    user_id: Optional[str] = None


@dataclass(frozen=True)
class RecallHit:
    extraction_id: str
    role: str
    ts: str
    excerpt: str
    session_id: Optional[str] = None
    user_id: Optional[str] = None
    score: Optional[float] = None


@dataclass(frozen=True)
class ObservationView:
    session_id: str
    obs_id: str
    agent: str
    tool: str
    summary: str
    outcome: str
    ts: str
    user_id: Optional[str] = None
    path: Optional[str] = None
    crystallized_at: Optional[str] = None


@dataclass(frozen=True)
class ContextScope:
    user_id: Optional[str] = None
    session_id: Optional[str] = None


@dataclass(frozen=True)
class ContextPackResponse:
    """context.pack: what Loom knows that bears on ``query`` for one (user, session) scope."""

    query: str
    scope: ContextScope
    memories: List[MemoryHit]
    conversation: List[SearchHit]
    evidence: List[RecallHit]
    #: the hits as one Markdown text, cut at a line to ``max_chars``
    pack: str
    truncated: bool
    unavailable: List[str]
    actions: List[ObservationView] = field(default_factory=list)


# ---- session briefs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BriefSections:
    goal: str = ""
    status: str = ""
    decisions: List[str] = field(default_factory=list)
    dead_ends: List[str] = field(default_factory=list)
    done: List[str] = field(default_factory=list)
    open_questions: List[str] = field(default_factory=list)
    next_steps: List[str] = field(default_factory=list)
    key_files: List[str] = field(default_factory=list)
    constraints: List[str] = field(default_factory=list)
    pointers: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class BriefWindows:
    revised: int
    failed: int
    switched_off: int


@dataclass(frozen=True)
class BriefSaveResponse:
    brief_key: str
    changed: bool
    revision: int
    #: ``llm``, ``deterministic`` or ``model`` (the calling agent wrote the sections)
    author: Optional[str] = None
    #: ``not-revised`` or ``retry``
    reason: Optional[str] = None
    windows: Optional[BriefWindows] = None
    skipped_high: Optional[int] = None


@dataclass(frozen=True)
class BriefView:
    brief_key: str
    revision: int
    author: str
    updated_at: str
    sections: BriefSections
    rendered: str
    project: Optional[str] = None
    branch: Optional[str] = None
    session_id: Optional[str] = None
    client_summary: Optional[str] = None


@dataclass(frozen=True)
class BriefListItem:
    brief_key: str
    revision: int
    updated_at: str
    line: str
    project: Optional[str] = None
    branch: Optional[str] = None


@dataclass(frozen=True)
class BriefDeleteResponse:
    brief_key: str
    deleted: bool


# ---- runs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UsageTotals:
    reports: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: Optional[float] = None


@dataclass(frozen=True)
class ModelUsage(UsageTotals):
    model: str = ""


@dataclass(frozen=True)
class RunModelCost(UsageTotals):
    unpriced_models: List[str] = field(default_factory=list)
    by_model: List[ModelUsage] = field(default_factory=list)


@dataclass(frozen=True)
class RunView:
    run_id: str
    agent: str
    goal: str
    status: str
    source: str
    started_at: str
    last_activity_at: str
    outcome: Optional[str] = None
    memories_used: List[str] = field(default_factory=list)
    wrote: List[str] = field(default_factory=list)
    ended_at: Optional[str] = None
    #: None when the client reported no model usage
    model_cost: Optional[RunModelCost] = None


@dataclass(frozen=True)
class RunListResponse:
    runs: List[RunView]
    model_cost: Optional[RunModelCost] = None


@dataclass(frozen=True)
class RunReportUsageResponse:
    run_id: str
    accepted: int
    began: bool
    model_cost: RunModelCost


# ---- tokens -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreateTokenResponse:
    #: shown once; only its hash is stored
    token: str
    token_id: str
    namespace: str
    role: str


# ---- the Session's own answers ----------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """One turn to append: ``{"role", "content"}`` dicts are accepted wherever a Message is."""

    role: str
    content: str
    msg_id: Optional[str] = None


@dataclass(frozen=True)
class Resumed:
    """What ``Session.resume`` answers: context.pack for the scope, and the thread's tail, oldest first."""

    context: ContextPackResponse
    tail: List[TurnView]


__all__ = [
    "AppendTurnResponse",
    "BriefDeleteResponse",
    "BriefListItem",
    "BriefSaveResponse",
    "BriefSections",
    "BriefView",
    "BriefWindows",
    "ContextPackResponse",
    "ContextScope",
    "CreateTokenResponse",
    "ExtractionStatusResponse",
    "GetThreadResponse",
    "ListSavedMessagesResponse",
    "ListThreadsResponse",
    "ListTurnsResponse",
    "MemoryHit",
    "Message",
    "ModelUsage",
    "ObservationView",
    "RecallHit",
    "Resumed",
    "RunListResponse",
    "RunModelCost",
    "RunReportUsageResponse",
    "RunView",
    "SaveMessageResponse",
    "SavedMessageHit",
    "SavedMessageItem",
    "SavedStatusResponse",
    "SearchHit",
    "SearchSavedMessagesResponse",
    "SearchTurnsResponse",
    "SetFromMessagesResponse",
    "SetLoggingResponse",
    "ThreadSummaryView",
    "ThreadView",
    "TurnView",
    "UnsaveMessageResponse",
    "UsageTotals",
    "from_json",
    "TurnRole",
    "SearchMode",
    "SavedSearchMode",
    "RunStatus",
    "CompletedRunStatus",
    "BriefAuthor",
]
