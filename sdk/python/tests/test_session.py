"""The spec's Session (CHECKLIST section 14, SDK-SESSION-01..08) against a live Loom."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable, TypeVar

import pytest

from loom import Agent, AppendTurnResponse, Client, Resumed, Session

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


def agent(client: Client, token: str, **options: Any) -> Agent:
    return Agent(client.namespace or "", "local", "support-bot", base_url=client.base_url, token=token, **options)


def test_SDK_SESSION_01_agent_is_an_async_context_manager_and_session_binds_one_user_and_thread(admin: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Session:
        async with agent(admin, token_for("writer")) as bot:
            s = bot.session("thread-42", user_id="u1")
            assert (s.thread_id, s.user_id, s.agent) == ("thread-42", "u1", bot)
            await s.append({"role": "user", "content": "hello"})
            return s

    s = run(go())
    # Leaving the agent closed its session: it takes no more appends.
    assert s.closed
    with pytest.raises(RuntimeError, match="closed"):
        run(s.append({"role": "user", "content": "late"}))


def test_SDK_SESSION_02_append_writes_each_message_through_conversation_append(recording: Client, token_for: Callable[..., str]) -> None:
    async def go() -> list:
        async with agent(recording, token_for("writer")) as bot:
            s = bot.session("thread-42", user_id="u1")
            return await s.append(
                {"role": "user", "content": "We moved invoices to the new ledger."},
                {"role": "assistant", "content": "Noted; I'll update the export job."},
            )

    answers = run(go())
    assert [type(a) for a in answers] == [AppendTurnResponse, AppendTurnResponse]
    assert all(a.stored and a.thread_id == "thread-42" for a in answers)
    turns = recording.list("thread-42", agent="support-bot").messages
    assert [(t.role, t.content, t.user_id, t.agent) for t in turns] == [
        ("user", "We moved invoices to the new ledger.", "u1", "support-bot"),
        ("assistant", "Noted; I'll update the export job.", "u1", "support-bot"),
    ]
    assert turns[0].metadata.get("environment") == "local"


def test_SDK_SESSION_03_CONV_REC_11_transcript_stored_is_false_when_the_namespace_does_not_record(admin: Client, token_for: Callable[..., str]) -> None:
    token = token_for("writer")

    async def append_once() -> Session:
        async with agent(admin, token) as bot:
            s = bot.session("thread-42", user_id="u1")
            assert s.transcript_stored is None
            answers = await s.append({"role": "user", "content": "not kept"})
            assert answers[0].reason == "logging_disabled"
            return s

    assert run(append_once()).transcript_stored is False
    assert admin.list("thread-42", agent="support-bot").messages == []

    admin.set_logging(True)
    assert run(_stored(admin, token)) is True


def _stored(admin: Client, token: str) -> Awaitable[bool]:
    async def go() -> bool:
        async with agent(admin, token) as bot:
            s = bot.session("thread-42", user_id="u1")
            await s.append({"role": "user", "content": "kept now"})
            stored = s.transcript_stored
            # The same turn again is a duplicate: it was stored, so the transcript holds it.
            await s.append({"role": "user", "content": "kept now"})
            assert s.transcript_stored is True
            return bool(stored)

    return go()


@pytest.mark.parametrize("record", [True, False], ids=["recording on", "recording off"])
def test_SDK_SESSION_04_every_flush_every_turns_the_session_hands_them_to_memory_set_from_messages(admin: Client, token_for: Callable[..., str], record: bool) -> None:
    admin.set_logging(record)

    async def go() -> Session:
        async with agent(admin, token_for("writer")) as bot:
            s = bot.session("thread-7", user_id="u1", flush_every=2)
            await s.append({"role": "user", "content": "one"})
            assert s.extractions == []
            await s.append({"role": "assistant", "content": "two"}, {"role": "user", "content": "three"})
            assert len(s.extractions) == 1
            assert s.extractions[0].deferred is True and s.extractions[0].evidence == 2
            return s

    s = run(go())
    # Leaving the agent handed over the third turn too.
    assert [e.evidence for e in s.extractions] == [2, 1]
    status = admin.extraction_status(s.extractions[0].extraction_id)
    assert status.extraction_id == s.extractions[0].extraction_id


def test_SDK_SESSION_05_close_sends_the_remaining_buffered_turns_to_extraction(admin: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Session:
        bot = agent(admin, token_for("writer"))
        s = bot.session("thread-8", user_id="u1")
        await s.append({"role": "user", "content": "We moved invoices to the new ledger."})
        assert s.extractions == []
        await s.close()
        await s.close()  # closing again sends nothing more
        return s

    s = run(go())
    assert len(s.extractions) == 1 and s.extractions[0].evidence == 1


def test_SDK_SESSION_06_with_the_fake_llm_close_extracts_no_facts_but_the_turns_are_recorded(recording: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Session:
        async with agent(recording, token_for("writer")) as bot:
            s = bot.session("thread-9", user_id="u1")
            await s.append({"role": "user", "content": "Invoices live in ledger_v2 now."})
            return s

    s = run(go())
    extraction_id = s.extractions[0].extraction_id
    deadline = time.monotonic() + 60
    status = recording.extraction_status(extraction_id)
    while status.status == "pending" and time.monotonic() < deadline:
        time.sleep(0.25)
        status = recording.extraction_status(extraction_id)
    assert (status.status, status.facts) == ("done", 0)
    assert [t.content for t in recording.list("thread-9", agent="support-bot").messages] == ["Invoices live in ledger_v2 now."]


def test_SDK_SESSION_07_resume_is_context_pack_for_the_scope_plus_the_transcript_tail(recording: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Resumed:
        async with agent(recording, token_for("writer")) as bot:
            s = bot.session("thread-42", user_id="u1")
            await s.append(*({"role": "user" if i % 2 == 0 else "assistant", "content": f"billing migration step {i}"} for i in range(5)))
            return await s.resume(query="resume the billing migration", tail=3)

    resumed = run(go())
    assert resumed.context.query == "resume the billing migration"
    assert (resumed.context.scope.user_id, resumed.context.scope.session_id) == ("u1", "thread-42")
    assert resumed.context.pack.startswith("# Context for: resume the billing migration")
    # The session's own turns are searched, and the tail is the last turns, oldest first.
    assert {h.thread_id for h in resumed.context.conversation} <= {"thread-42"}
    assert [t.content for t in resumed.tail] == ["billing migration step 2", "billing migration step 3", "billing migration step 4"]


def test_SDK_SESSION_07_resume_of_a_session_with_nothing_recorded_has_an_empty_tail(admin: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Resumed:
        async with agent(admin, token_for("writer")) as bot:
            return await bot.session("new-thread", user_id="u1").resume(query="anything")

    resumed = run(go())
    assert resumed.tail == [] and resumed.context.conversation == []


def test_SDK_SESSION_08_briefs_save_stores_the_agents_sections_under_auto_project_branch(admin: Client, token_for: Callable[..., str]) -> None:
    async def go() -> Any:
        async with agent(admin, token_for("writer")) as bot:
            saved = await bot.briefs.save(
                project="billing",
                branch="ledger-move",
                sections={"goal": "Move invoices to the new ledger", "next_steps": ["Update the export job"]},
            )
            brief = await bot.briefs.get(brief_key=saved.brief_key)
            listed = await bot.briefs.list()
            return saved, brief, listed

    saved, brief, listed = run(go())
    assert (saved.brief_key, saved.author, saved.changed, saved.revision) == ("auto/billing/ledger-move", "model", True, 1)
    assert (brief.sections.goal, brief.sections.next_steps, brief.project, brief.branch) == ("Move invoices to the new ledger", ["Update the export job"], "billing", "ledger-move")
    assert [(b.brief_key, b.line) for b in listed] == [("auto/billing/ledger-move", "Move invoices to the new ledger")]
