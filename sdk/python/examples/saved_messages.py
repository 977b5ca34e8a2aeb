"""
Saving single messages for later search, without recording the namespace's transcripts (the
README's saved-message example in Python). Needs a writer token in LOOM_TOKEN.

    LOOM_TOKEN=... python3 examples/saved_messages.py
"""

import asyncio
import os

from loom import Agent


async def main() -> None:
    namespace = os.environ.get("LOOM_NAMESPACE", "acme")
    async with Agent(namespace, "local", "support-bot", base_url=os.environ.get("LOOM_URL", "http://127.0.0.1:7777")) as bot:
        saved = await bot.saved.save(
            "thread-42",
            "a-7",
            user_id="u1",
            role="assistant",
            content="Run the PROJ-1234 backfill against ledger_v2.",
        )
        print(saved.saved, saved.indexed, saved.saved_at)
        found = await bot.saved.search("PROJ-1234", user_id="u1", search_mode="lexical")
        print(found.mode, [(h.message_id, h.excerpt, h.matched) for h in found.hits])
        listed = await bot.saved.list(user_id="u1")
        print([m.message_id for m in listed.messages])
        status = await bot.saved.status("thread-42", ["a-7", "u-1"], user_id="u1")
        print(status.saved)  # {'a-7': True, 'u-1': False}
        gone = await bot.saved.unsave("thread-42", "a-7", user_id="u1")
        print(gone.found, gone.removed)


if __name__ == "__main__":
    asyncio.run(main())
