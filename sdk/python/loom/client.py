"""
A thin synchronous client of the Loom ops API (``POST /v1/ops/<op>``, one JSON body per call),
standard library only. Every typed method is one op; ``call`` reaches any other op.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Dict, Iterable, List, Mapping, Optional, Type, TypeVar, Union

from . import __version__
from .errors import LoomConnectionError, api_error
from .models import (
    AppendTurnResponse,
    BriefDeleteResponse,
    BriefListItem,
    BriefSaveResponse,
    BriefView,
    ContextPackResponse,
    CreateTokenResponse,
    ExtractionStatusResponse,
    GetThreadResponse,
    ListSavedMessagesResponse,
    ListThreadsResponse,
    ListTurnsResponse,
    Message,
    RunListResponse,
    RunReportUsageResponse,
    RunView,
    SavedStatusResponse,
    SaveMessageResponse,
    SearchSavedMessagesResponse,
    SearchTurnsResponse,
    SetFromMessagesResponse,
    SetLoggingResponse,
    UnsaveMessageResponse,
    from_json,
)

T = TypeVar("T")
Json = Dict[str, Any]
MessageLike = Union[Message, Mapping[str, Any]]

DEFAULT_URL = "http://127.0.0.1:7777"


def message_dict(message: MessageLike) -> Json:
    """A Message or a ``{"role", "content", "msg_id"?}`` mapping, as the wire takes it."""
    if isinstance(message, Message):
        return _clean({"role": message.role, "content": message.content, "msg_id": message.msg_id})
    if not isinstance(message, Mapping) or "role" not in message or "content" not in message:
        raise TypeError("a message is a loom.Message or a mapping with 'role' and 'content'")
    return _clean({"role": message["role"], "content": message["content"], "msg_id": message.get("msg_id")})


def _clean(body: Mapping[str, Any]) -> Json:
    # The API refuses null ("leave an optional field out instead"), so unset arguments are dropped.
    return {k: v for k, v in body.items() if v is not None}


class Client:
    """
    ``Client(base_url, token)``: ``base_url`` defaults to ``LOOM_URL`` (else
    http://127.0.0.1:7777) and ``token`` to ``LOOM_TOKEN``. ``namespace`` and ``agent`` are the
    defaults of every call (each method also takes them); left out, Loom uses the token's
    namespace and the agent ``"default"``.

    A 503 (nothing was written) and a refused connection are retried ``retries`` times with a
    short back-off; any other error answer raises a ``LoomApiError`` subclass at once.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
        timeout: float = 30.0,
        retries: int = 2,
    ) -> None:
        self.base_url = (base_url or os.environ.get("LOOM_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else os.environ.get("LOOM_TOKEN")
        self.namespace = namespace
        self.agent = agent
        self.timeout = timeout
        self.retries = retries

    # ---- transport ----------------------------------------------------------------------------

    def call(self, op: str, body: Optional[Mapping[str, Any]] = None) -> Json:
        """Calls one op with ``body`` as sent (no defaults added) and answers its decoded JSON."""
        data = json.dumps(dict(body or {})).encode("utf-8")
        headers = {"content-type": "application/json", "accept": "application/json", "user-agent": f"loom-sdk-python/{__version__}"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        attempt = 0
        while True:
            request = urllib.request.Request(f"{self.base_url}/v1/ops/{op}", data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return _decode(response.read())  # type: ignore[no-any-return]
            except urllib.error.HTTPError as error:
                answer = _decode(error.read())
                failure: Exception = api_error(error.code, answer, op)
                retry = error.code == 503
            except urllib.error.URLError as error:
                failure = LoomConnectionError(f"{op}: Loom at {self.base_url} did not answer: {error.reason}")
                # Refused means nothing reached Loom; after a timeout the write may have landed.
                retry = isinstance(error.reason, ConnectionRefusedError)
            except (socket.timeout, TimeoutError) as error:
                raise LoomConnectionError(f"{op}: no answer from Loom at {self.base_url} within {self.timeout}s") from error
            if not retry or attempt >= self.retries:
                raise failure
            attempt += 1
            time.sleep(0.2 * 2 ** (attempt - 1))

    def _op(self, cls: Type[T], op: str, body: Mapping[str, Any], namespace: Optional[str], agent: Optional[str] = None, *, agent_scoped: bool = True) -> T:
        scoped = {"namespace": namespace or self.namespace}
        if agent_scoped:
            scoped["agent"] = agent or self.agent
        return from_json(cls, self.call(op, _clean({**scoped, **body})))

    # ---- conversations ------------------------------------------------------------------------

    def set_logging(self, enabled: bool, *, namespace: Optional[str] = None) -> SetLoggingResponse:
        """conversation.set_logging (admin): the namespace's Record conversations switch."""
        return self._op(SetLoggingResponse, "conversation.set_logging", {"enabled": enabled}, namespace, agent_scoped=False)

    def get_logging(self, *, namespace: Optional[str] = None) -> SetLoggingResponse:
        return self._op(SetLoggingResponse, "conversation.get_logging", {}, namespace, agent_scoped=False)

    def append(
        self,
        thread_id: str,
        role: str,
        content: str,
        *,
        msg_id: Optional[str] = None,
        reasoning: Optional[str] = None,
        user_id: Optional[str] = None,
        run_id: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        tokens: Optional[int] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> AppendTurnResponse:
        """conversation.append: ``stored`` is false with ``reason`` ``logging_disabled`` when the namespace does not record."""
        body = {"thread_id": thread_id, "role": role, "content": content, "msg_id": msg_id, "reasoning": reasoning, "user_id": user_id, "run_id": run_id, "metadata": dict(metadata) if metadata is not None else None, "tokens": tokens}
        return self._op(AppendTurnResponse, "conversation.append", body, namespace, agent)

    def get(
        self,
        thread_id: str,
        *,
        include_messages: Optional[bool] = None,
        order: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> GetThreadResponse:
        body = {"thread_id": thread_id, "include_messages": include_messages, "order": order, "limit": limit, "cursor": cursor}
        return self._op(GetThreadResponse, "conversation.get", body, namespace, agent)

    def list(
        self,
        thread_id: str,
        *,
        run_id: Optional[str] = None,
        order: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> ListTurnsResponse:
        """conversation.list: one page of a thread's turns; follow ``next_cursor`` for the rest."""
        body = {"thread_id": thread_id, "run_id": run_id, "order": order, "limit": limit, "cursor": cursor}
        return self._op(ListTurnsResponse, "conversation.list", body, namespace, agent)

    def threads(
        self,
        *,
        window_days: Optional[int] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> ListThreadsResponse:
        body = {"window_days": window_days, "limit": limit, "offset": offset}
        return self._op(ListThreadsResponse, "conversation.threads", body, namespace, agent)

    def search(
        self,
        query: str,
        *,
        search_mode: Optional[str] = None,
        lexical_weight: Optional[float] = None,
        thread_id: Optional[str] = None,
        run_id: Optional[str] = None,
        role: Optional[str] = None,
        limit: Optional[int] = None,
        namespace_scope: Optional[str] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> SearchTurnsResponse:
        """conversation.search: ``search_mode`` ``hybrid`` (default), ``vector`` or ``lexical``."""
        body = {"query": query, "search_mode": search_mode, "lexical_weight": lexical_weight, "thread_id": thread_id, "run_id": run_id, "role": role, "limit": limit, "namespace_scope": namespace_scope}
        return self._op(SearchTurnsResponse, "conversation.search", body, namespace, agent)

    # ---- saved messages -----------------------------------------------------------------------

    def save_message(
        self,
        conversation_id: str,
        message_id: str,
        *,
        user_id: Optional[str] = None,
        role: Optional[str] = None,
        content: Optional[str] = None,
        run_id: Optional[str] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> SaveMessageResponse:
        """conversation.save_message: stored and searchable whatever the recording switch says."""
        body = {"conversation_id": conversation_id, "message_id": message_id, "user_id": user_id, "role": role, "content": content, "run_id": run_id}
        return self._op(SaveMessageResponse, "conversation.save_message", body, namespace, agent)

    def unsave_message(self, conversation_id: str, message_id: str, *, user_id: Optional[str] = None, namespace: Optional[str] = None, agent: Optional[str] = None) -> UnsaveMessageResponse:
        body = {"conversation_id": conversation_id, "message_id": message_id, "user_id": user_id}
        return self._op(UnsaveMessageResponse, "conversation.unsave_message", body, namespace, agent)

    def search_saved_messages(
        self,
        query: str,
        *,
        user_id: Optional[str] = None,
        search_mode: Optional[str] = None,
        lexical_weight: Optional[float] = None,
        conversation_id: Optional[str] = None,
        limit: Optional[int] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> SearchSavedMessagesResponse:
        """conversation.search_saved_messages: ``search_mode`` ``hybrid`` (default), ``semantic`` or ``lexical``."""
        body = {"query": query, "user_id": user_id, "search_mode": search_mode, "lexical_weight": lexical_weight, "conversation_id": conversation_id, "limit": limit}
        return self._op(SearchSavedMessagesResponse, "conversation.search_saved_messages", body, namespace, agent)

    def list_saved_messages(
        self,
        *,
        user_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> ListSavedMessagesResponse:
        body = {"user_id": user_id, "conversation_id": conversation_id, "limit": limit, "cursor": cursor}
        return self._op(ListSavedMessagesResponse, "conversation.list_saved_messages", body, namespace, agent)

    def saved_status(self, conversation_id: str, message_ids: Iterable[str], *, user_id: Optional[str] = None, namespace: Optional[str] = None, agent: Optional[str] = None) -> SavedStatusResponse:
        body = {"conversation_id": conversation_id, "message_ids": list(message_ids), "user_id": user_id}
        return self._op(SavedStatusResponse, "conversation.saved_status", body, namespace, agent)

    # ---- memory and context -------------------------------------------------------------------

    def set_from_messages(
        self,
        messages: Iterable[MessageLike],
        *,
        user_id: Optional[str] = None,
        session_id: Optional[str] = None,
        defer: Optional[bool] = None,
        namespace: Optional[str] = None,
    ) -> SetFromMessagesResponse:
        """memory.set_from_messages: the turns become evidence, and the LLM extracts facts from them."""
        wire = [{"role": m["role"], "content": m["content"]} for m in map(message_dict, messages)]
        body = {"messages": wire, "user_id": user_id, "session_id": session_id, "defer": defer}
        return self._op(SetFromMessagesResponse, "memory.set_from_messages", body, namespace, agent_scoped=False)

    def extraction_status(self, extraction_id: str, *, namespace: Optional[str] = None) -> ExtractionStatusResponse:
        return self._op(ExtractionStatusResponse, "memory.extraction_status", {"extraction_id": extraction_id}, namespace, agent_scoped=False)

    def context_pack(
        self,
        query: str,
        *,
        user_id: Optional[str] = None,
        session_id: Optional[str] = None,
        limit: Optional[int] = None,
        max_chars: Optional[int] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> ContextPackResponse:
        body = {"query": query, "user_id": user_id, "session_id": session_id, "limit": limit, "max_chars": max_chars}
        return self._op(ContextPackResponse, "context.pack", body, namespace, agent)

    # ---- session briefs -----------------------------------------------------------------------

    def brief_save(
        self,
        *,
        brief_key: Optional[str] = None,
        project: Optional[str] = None,
        branch: Optional[str] = None,
        session_id: Optional[str] = None,
        events: Optional[List[Mapping[str, Any]]] = None,
        sections: Optional[Mapping[str, Any]] = None,
        event_cursor: Optional[str] = None,
        if_revision: Optional[int] = None,
        use_llm: Optional[bool] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> BriefSaveResponse:
        """session.brief_save: an empty ``brief_key`` addresses ``auto/<project>/<branch>``."""
        body = {
            "brief_key": brief_key,
            "project": project,
            "branch": branch,
            "session_id": session_id,
            "events": [dict(e) for e in events] if events is not None else None,
            "sections": dict(sections) if sections is not None else None,
            "event_cursor": event_cursor,
            "if_revision": if_revision,
            "use_llm": use_llm,
        }
        return self._op(BriefSaveResponse, "session.brief_save", body, namespace, agent)

    def brief_get(
        self,
        *,
        brief_key: Optional[str] = None,
        from_session: Optional[str] = None,
        project: Optional[str] = None,
        revision: Optional[int] = None,
        full: Optional[bool] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> BriefView:
        """session.brief_get: by ``brief_key``, else the newest ``from_session`` wrote, else the newest for ``project``."""
        body = {"brief_key": brief_key, "from_session": from_session, "project": project, "revision": revision, "full": full}
        return from_json(BriefView, self.call("session.brief_get", _clean({"namespace": namespace or self.namespace, "agent": agent or self.agent, **body}))["brief"])

    def brief_list(self, *, mine_only: Optional[bool] = None, limit: Optional[int] = None, namespace: Optional[str] = None, agent: Optional[str] = None) -> List[BriefListItem]:
        answer = self.call("session.brief_list", _clean({"namespace": namespace or self.namespace, "agent": agent or self.agent, "mine_only": mine_only, "limit": limit}))
        return [from_json(BriefListItem, b) for b in answer["briefs"]]

    def brief_delete(self, brief_key: str, *, namespace: Optional[str] = None, agent: Optional[str] = None) -> BriefDeleteResponse:
        return self._op(BriefDeleteResponse, "session.brief_delete", {"brief_key": brief_key}, namespace, agent)

    # ---- runs ---------------------------------------------------------------------------------

    def run_begin(self, goal: str, *, run_id: Optional[str] = None, namespace: Optional[str] = None, agent: Optional[str] = None) -> RunView:
        return self._run("run.begin", {"goal": goal, "run_id": run_id}, namespace, agent)

    def run_complete(
        self,
        run_id: str,
        status: str,
        *,
        outcome: Optional[str] = None,
        memories_used: Optional[List[str]] = None,
        wrote: Optional[List[str]] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> RunView:
        """run.complete: ``status`` is ``succeeded``, ``failed``, ``abandoned`` or ``ended``."""
        return self._run("run.complete", {"run_id": run_id, "status": status, "outcome": outcome, "memories_used": memories_used, "wrote": wrote}, namespace, agent)

    def run_get(self, run_id: str, *, namespace: Optional[str] = None, agent: Optional[str] = None) -> RunView:
        return self._run("run.get", {"run_id": run_id}, namespace, agent)

    def run_list(
        self,
        *,
        status: Optional[str] = None,
        since: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        namespace: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> RunListResponse:
        """run.list: newest first; ``agent="*"`` for every agent's runs."""
        return self._op(RunListResponse, "run.list", {"status": status, "since": since, "limit": limit, "offset": offset}, namespace, agent)

    def run_report_usage(self, run_id: str, reports: List[Mapping[str, Any]], *, goal: Optional[str] = None, namespace: Optional[str] = None, agent: Optional[str] = None) -> RunReportUsageResponse:
        body = {"run_id": run_id, "reports": [dict(r) for r in reports], "goal": goal}
        return self._op(RunReportUsageResponse, "run.report_usage", body, namespace, agent)

    def _run(self, op: str, body: Json, namespace: Optional[str], agent: Optional[str]) -> RunView:
        answer = self.call(op, _clean({"namespace": namespace or self.namespace, "agent": agent or self.agent, **body}))
        return from_json(RunView, answer["run"])

    # ---- tokens -------------------------------------------------------------------------------

    def token_create(
        self,
        role: str,
        *,
        read_scope: Optional[str] = None,
        read_user_id: Optional[str] = None,
        read_session_id: Optional[str] = None,
        label: Optional[str] = None,
        namespace: Optional[str] = None,
    ) -> CreateTokenResponse:
        """token.create (admin): the token is in the answer once, and never again."""
        body = {"role": role, "read_scope": read_scope, "read_user_id": read_user_id, "read_session_id": read_session_id, "label": label}
        return self._op(CreateTokenResponse, "token.create", body, namespace, agent_scoped=False)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
