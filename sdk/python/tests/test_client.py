"""The thin ops client: typed answers, search modes, saved messages, runs, and the API's errors as exceptions."""

from __future__ import annotations

import asyncio
import socket
from typing import Callable

import pytest

import loom
from loom import (
    Agent,
    Client,
    Forbidden,
    InvalidInput,
    LoomApiError,
    LoomConnectionError,
    NotFound,
    PayloadTooLarge,
    SearchHit,
    Unauthorized,
    from_json,
)


def test_issue_12_search_takes_search_mode_and_answers_typed_hits(recording: Client, token_for: Callable[..., str]) -> None:
    writer = Client(recording.base_url, token_for("writer"), namespace=recording.namespace)
    writer.append("thread-42", "user", "We moved invoices to the new ledger.", msg_id="u-1")
    writer.append("thread-42", "assistant", "The export job reads parseJsonBody output.", msg_id="a-1")
    for mode in ("hybrid", "vector", "lexical"):
        found = writer.search("parseJsonBody", search_mode=mode, namespace_scope="namespace")
        assert found.mode in (mode, "substring")
        assert all(isinstance(h, SearchHit) and h.namespace == recording.namespace for h in found.hits)
    lexical = writer.search("json body", search_mode="lexical", namespace_scope="namespace")
    assert [h.msg_id for h in lexical.hits] == ["a-1"]
    assert lexical.hits[0].score is not None and "parseJsonBody" in lexical.hits[0].excerpt


def test_issue_12_a_400_raises_InvalidInput_naming_each_bad_field(recording: Client) -> None:
    with pytest.raises(InvalidInput) as raised:
        recording.search("x", search_mode="fuzzy", lexical_weight=3)
    error = raised.value
    assert (error.status, error.code, error.reason, error.op) == (400, "invalid_input", "invalid_input", "conversation.search")
    assert {f.field for f in error.fields} == {"search_mode", "lexical_weight"}
    assert error.body["error"]["correlation_id"] == error.correlation_id
    assert "search_mode" in str(error) and isinstance(error, LoomApiError) and not error.retryable


def test_issue_12_roles_and_tokens_raise_Forbidden_and_Unauthorized(admin: Client, token_for: Callable[..., str]) -> None:
    viewer = Client(admin.base_url, token_for("viewer"), namespace=admin.namespace)
    with pytest.raises(Forbidden) as forbidden:
        viewer.append("t", "user", "a viewer cannot write")
    assert forbidden.value.status == 403
    with pytest.raises(Unauthorized):
        Client(admin.base_url, "loom_not-a-token", namespace=admin.namespace).threads()


def test_issue_12_unknown_ops_raise_NotFound_and_large_content_PayloadTooLarge(recording: Client) -> None:
    with pytest.raises(NotFound) as unknown:
        recording.call("conversation.nope", {})
    assert unknown.value.code == "unknown_op"
    with pytest.raises(PayloadTooLarge):
        recording.append("t", "user", "x" * (1024 * 1024 + 1))


def test_issue_12_no_loom_listening_raises_LoomConnectionError() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LoomConnectionError, match="did not answer"):
        Client(f"http://127.0.0.1:{port}", "t", retries=1).threads()


def test_issue_12_get_list_and_threads_read_the_thread_back_page_by_page(recording: Client) -> None:
    for i in range(5):
        recording.append("thread-42", "user" if i % 2 == 0 else "assistant", f"turn {i}", msg_id=f"m-{i}")
    got = recording.get("thread-42", include_messages=True, order="desc", limit=2)
    assert got.thread.turn_count == 5 and [m.msg_id for m in got.messages or []] == ["m-4", "m-3"]
    seen, cursor = [], None
    while True:
        page = recording.list("thread-42", limit=2, cursor=cursor)
        seen += [m.content for m in page.messages]
        cursor = page.next_cursor
        if not cursor:
            break
    assert seen == [f"turn {i}" for i in range(5)]
    assert [t.thread_id for t in recording.threads(window_days=1).threads] == ["thread-42"]


def test_SAVE_SAVE_02_saved_messages_are_kept_with_recording_off_and_searched_per_user(admin: Client, token_for: Callable[..., str]) -> None:
    writer = Client(admin.base_url, token_for("writer"), namespace=admin.namespace)
    saved = writer.save_message("thread-42", "a-7", user_id="u1", role="assistant", content="Run the PROJ-1234 backfill against ledger_v2.")
    assert (saved.saved, saved.indexed, saved.reason) == (True, True, None) and saved.saved_at
    hits = writer.search_saved_messages("PROJ-1234", user_id="u1", search_mode="lexical").hits
    assert [(h.message_id, h.matched) for h in hits] == [("a-7", ["lexical"])]
    assert writer.search_saved_messages("PROJ-1234", user_id="u2").hits == []
    assert [m.message_id for m in writer.list_saved_messages(user_id="u1").messages] == ["a-7"]
    assert writer.saved_status("thread-42", ["a-7", "zz"], user_id="u1").saved == {"a-7": True, "zz": False}
    gone = writer.unsave_message("thread-42", "a-7", user_id="u1")
    # Recording is off, so the turn existed only because of the save and leaves with it.
    assert (gone.found, gone.removed) == (True, True)
    assert writer.unsave_message("thread-42", "a-7", user_id="u1").found is False


def test_RUNS_01_track_begins_a_run_and_completes_it_with_the_turns_linked(recording: Client, token_for: Callable[..., str]) -> None:
    async def go() -> tuple:
        async with Agent(recording.namespace or "", "local", "support-bot", base_url=recording.base_url, token=token_for("writer")) as bot:
            async with bot.runs.track("Update the export job") as run:
                await bot.session("thread-43", user_id="u1", run_id=run.run_id).append({"role": "user", "content": "Point it at ledger_v2."})
            with pytest.raises(ValueError):
                async with bot.runs.track("Fails") as failing:
                    raise ValueError("ledger_v2 is read-only")
            return await bot.runs.get(run.run_id), await bot.runs.get(failing.run_id), await bot.runs.list()

    done, failed, listed = asyncio.run(go())
    assert (done.status, done.goal, done.source, done.model_cost) == ("succeeded", "Update the export job", "api", None)
    assert (failed.status, failed.outcome) == ("failed", "ledger_v2 is read-only")
    assert [r.run_id for r in listed.runs] == [failed.run_id, done.run_id]
    assert [t.run_id for t in recording.list("thread-43", agent="support-bot").messages] == [done.run_id]


def test_issue_12_answers_ignore_fields_a_newer_loom_adds() -> None:
    hit = from_json(SearchHit, {"namespace": "n", "thread_id": "t", "msg_id": "m", "agent": "a", "role": "user", "ts": "2026-01-01T00:00:00Z", "excerpt": "e", "score": None, "new_field": 1})
    assert hit.score is None and hit.excerpt == "e"
    assert loom.__version__ == "0.1.0"
