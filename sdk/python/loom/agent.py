"""
The spec's ``Agent`` and ``Session``: async helpers over the ops client. Each call runs the
blocking HTTP request in a worker thread (``asyncio.to_thread``), so an event loop keeps serving
while Loom answers.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Set, Type

from contextlib import asynccontextmanager

from .client import Client, MessageLike, message_dict
from .models import (
    AppendTurnResponse,
    BriefDeleteResponse,
    BriefListItem,
    BriefSaveResponse,
    BriefView,
    ListSavedMessagesResponse,
    Resumed,
    RunListResponse,
    RunReportUsageResponse,
    RunView,
    SavedStatusResponse,
    SaveMessageResponse,
    SearchSavedMessagesResponse,
    SearchTurnsResponse,
    SetFromMessagesResponse,
    UnsaveMessageResponse,
)

DEFAULT_FLUSH_EVERY = 20


class Agent:
    """
    One agent's handle on Loom: ``Agent(namespace, environment, name, base_url=..., token=...)``.

    The namespace scopes every call, ``name`` is the ``agent`` of every op, and the environment
    (``"local"``, ``"staging"``) goes into each appended turn's ``metadata.environment``. The token
    defaults to ``LOOM_TOKEN`` and ``base_url`` to ``LOOM_URL``. Use it as an async context
    manager: leaving it closes its sessions, which hands their buffered turns to extraction.
    """

    def __init__(
        self,
        namespace: str,
        environment: str,
        name: str,
        *,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        timeout: float = 30.0,
        retries: int = 2,
        client: Optional[Client] = None,
    ) -> None:
        self.namespace = namespace
        self.environment = environment
        self.name = name
        self.client = client or Client(base_url, token, namespace=namespace, agent=name, timeout=timeout, retries=retries)
        self._metadata: Dict[str, Any] = {"environment": environment, **dict(metadata or {})}
        self._sessions: Set[Session] = set()
        self.briefs = Briefs(self)
        self.runs = Runs(self)
        self.saved = Saved(self)

    async def __aenter__(self) -> "Agent":
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        await self.close()

    def session(self, thread_id: str, user_id: Optional[str] = None, *, run_id: Optional[str] = None, flush_every: int = DEFAULT_FLUSH_EVERY) -> "Session":
        """A Session bound to one (user, session) scope: one thread, one user."""
        if flush_every < 1:
            raise ValueError("flush_every must be at least 1")
        s = Session(self, thread_id, user_id=user_id, run_id=run_id, flush_every=flush_every)
        self._sessions.add(s)
        return s

    def metadata(self) -> Dict[str, Any]:
        """The metadata every turn this agent appends carries."""
        return dict(self._metadata)

    async def search(self, query: str, **options: Any) -> SearchTurnsResponse:
        """conversation.search as this agent: ``search_mode="hybrid"`` (default), ``"vector"`` or ``"lexical"``; ``agent="*"`` for every agent's turns."""
        return await asyncio.to_thread(self.client.search, query, **options)

    async def close(self) -> None:
        """Closes every session this agent opened (each hands its remaining turns to extraction)."""
        sessions = list(self._sessions)
        self._sessions.clear()
        await asyncio.gather(*(s.close() for s in sessions))


class Session:
    """
    Writes one thread's turns through ``conversation.append`` and, every ``flush_every`` turns,
    hands them to ``memory.set_from_messages`` (deferred), whether or not the namespace records:
    facts are extracted either way. ``transcript_stored`` says whether the last append was kept.
    """

    def __init__(self, agent: Agent, thread_id: str, *, user_id: Optional[str], run_id: Optional[str], flush_every: int) -> None:
        self.agent = agent
        self.thread_id = thread_id
        self.user_id = user_id
        self.run_id = run_id
        self.flush_every = flush_every
        #: what memory.set_from_messages answered for each hand-off
        self.extractions: List[SetFromMessagesResponse] = []
        self._stored: Optional[bool] = None
        self._buffer: List[Dict[str, Any]] = []
        self._closed = False
        self._lock: Optional[asyncio.Lock] = None

    async def __aenter__(self) -> "Session":
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        await self.close()

    @property
    def transcript_stored(self) -> Optional[bool]:
        """
        False when the namespace does not record (the last append answered ``logging_disabled``),
        True when the last turn is in the transcript (a ``duplicate`` was stored before), None
        before the first append.
        """
        return self._stored

    @property
    def closed(self) -> bool:
        return self._closed

    async def append(self, *messages: MessageLike) -> List[AppendTurnResponse]:
        """Appends each ``{"role", "content"}`` message in order; answers what Loom said of each."""
        if self._closed:
            raise RuntimeError(f"session {self.thread_id} is closed")
        wire = [message_dict(m) for m in messages]
        answers: List[AppendTurnResponse] = []
        async with self._guard():
            for message in wire:
                answer = await asyncio.to_thread(
                    self.agent.client.append,
                    self.thread_id,
                    message["role"],
                    message["content"],
                    msg_id=message.get("msg_id"),
                    user_id=self.user_id,
                    run_id=self.run_id,
                    metadata=self.agent.metadata(),
                )
                self._stored = answer.stored or answer.reason == "duplicate"
                answers.append(answer)
                self._buffer.append({"role": message["role"], "content": message["content"]})
                if len(self._buffer) >= self.flush_every:
                    await self._flush()
        return answers

    async def flush(self) -> Optional[SetFromMessagesResponse]:
        """Hands the buffered turns to extraction now; None when nothing was buffered."""
        async with self._guard():
            return await self._flush()

    async def close(self) -> None:
        """Hands any remaining turns to extraction; the session takes no more appends."""
        if self._closed:
            return
        self._closed = True
        await self.flush()

    async def resume(self, query: str, *, tail: int = 20, limit: Optional[int] = None, max_chars: Optional[int] = None) -> Resumed:
        """
        Where to pick the work up: ``context.pack`` for this (user, session) scope (facts, this
        session's turns, tool actions and past evidence bearing on ``query``) and the thread's
        last ``tail`` turns, oldest first.
        """
        client = self.agent.client
        context, latest = await asyncio.gather(
            asyncio.to_thread(client.context_pack, query, user_id=self.user_id, session_id=self.thread_id, limit=limit, max_chars=max_chars),
            asyncio.to_thread(client.list, self.thread_id, order="desc", limit=tail),
        )
        return Resumed(context=context, tail=list(reversed(latest.messages)))

    async def _flush(self) -> Optional[SetFromMessagesResponse]:
        if not self._buffer:
            return None
        messages, self._buffer = self._buffer, []
        answer = await asyncio.to_thread(self.agent.client.set_from_messages, messages, user_id=self.user_id, session_id=self.thread_id, defer=True)
        self.extractions.append(answer)
        return answer

    @asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        # Made on first use, inside the running loop: turns of one session go out in call order.
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            yield


class Briefs:
    """``bot.briefs``: session briefs (``session.brief_*``) as the agent."""

    def __init__(self, agent: Agent) -> None:
        self._client = agent.client

    async def save(self, **fields: Any) -> BriefSaveResponse:
        """``save(project=..., branch=..., sections={...})``: sections the agent wrote (author ``model``), under ``auto/<project>/<branch>`` unless ``brief_key`` is given."""
        return await asyncio.to_thread(self._client.brief_save, **fields)

    async def get(self, **fields: Any) -> BriefView:
        return await asyncio.to_thread(self._client.brief_get, **fields)

    async def list(self, **fields: Any) -> List[BriefListItem]:
        return await asyncio.to_thread(self._client.brief_list, **fields)

    async def delete(self, brief_key: str) -> BriefDeleteResponse:
        return await asyncio.to_thread(self._client.brief_delete, brief_key)


class Runs:
    """``bot.runs``: the run ledger (``run.*``) as the agent."""

    def __init__(self, agent: Agent) -> None:
        self._client = agent.client

    async def begin(self, goal: str, *, run_id: Optional[str] = None) -> RunView:
        return await asyncio.to_thread(self._client.run_begin, goal, run_id=run_id)

    async def complete(self, run_id: str, status: str, **fields: Any) -> RunView:
        return await asyncio.to_thread(self._client.run_complete, run_id, status, **fields)

    async def get(self, run_id: str) -> RunView:
        return await asyncio.to_thread(self._client.run_get, run_id)

    async def list(self, **fields: Any) -> RunListResponse:
        return await asyncio.to_thread(self._client.run_list, **fields)

    async def report_usage(self, run_id: str, reports: List[Mapping[str, Any]], *, goal: Optional[str] = None) -> RunReportUsageResponse:
        return await asyncio.to_thread(self._client.run_report_usage, run_id, reports, goal=goal)

    @asynccontextmanager
    async def track(self, goal: str, *, run_id: Optional[str] = None) -> AsyncIterator[RunView]:
        """
        ``async with bot.runs.track(goal) as run:`` begins a run and completes it ``succeeded``,
        or ``failed`` with the exception's text (the exception goes on).
        """
        run = await self.begin(goal, run_id=run_id)
        try:
            yield run
        except BaseException as error:
            await self.complete(run.run_id, "failed", outcome=str(error) or type(error).__name__)
            raise
        await self.complete(run.run_id, "succeeded")


class Saved:
    """``bot.saved``: one user's saved messages (``conversation.*_saved_*``), whatever the recording switch says."""

    def __init__(self, agent: Agent) -> None:
        self._client = agent.client

    async def save(self, conversation_id: str, message_id: str, **fields: Any) -> SaveMessageResponse:
        return await asyncio.to_thread(self._client.save_message, conversation_id, message_id, **fields)

    async def unsave(self, conversation_id: str, message_id: str, **fields: Any) -> UnsaveMessageResponse:
        return await asyncio.to_thread(self._client.unsave_message, conversation_id, message_id, **fields)

    async def search(self, query: str, **fields: Any) -> SearchSavedMessagesResponse:
        """``search_mode="hybrid"`` (default), ``"semantic"`` or ``"lexical"``."""
        return await asyncio.to_thread(self._client.search_saved_messages, query, **fields)

    async def list(self, **fields: Any) -> ListSavedMessagesResponse:
        return await asyncio.to_thread(self._client.list_saved_messages, **fields)

    async def status(self, conversation_id: str, message_ids: List[str], **fields: Any) -> SavedStatusResponse:
        return await asyncio.to_thread(self._client.saved_status, conversation_id, message_ids, **fields)


__all__ = ["Agent", "Session", "Briefs", "Runs", "Saved"]
