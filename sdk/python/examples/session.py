"""
The spec's Session example ("Conversations and sessions" -> Session briefs -> Example), as it
runs: LOOM_URL, LOOM_TOKEN (a writer token) and LOOM_NAMESPACE (default "dev") say where.

    LOOM_TOKEN=... python3 examples/session.py
"""

import asyncio
import os

from loom import Agent


async def main() -> None:
    base_url = os.environ.get("LOOM_URL", "http://localhost:7777")
    namespace = os.environ.get("LOOM_NAMESPACE", "dev")
    async with Agent(namespace, "local", "support-bot", base_url=base_url) as bot:
        s = bot.session("thread-42", user_id="u1")
        resumed = await s.resume(query="resume the billing migration")
        print(resumed.context.pack)
        await s.append(
            {"role": "user", "content": "We moved invoices to the new ledger."},
            {"role": "assistant", "content": "Noted; I'll update the export job."},
        )
        print(s.transcript_stored)  # False when the namespace does not record
        await s.close()  # flushes the buffered turns to extraction
        saved = await bot.briefs.save(
            project="billing",
            branch="ledger-move",
            sections={
                "goal": "Move invoices to the new ledger",
                "next_steps": ["Update the export job"],
            },
        )
        print(saved.brief_key, saved.author)


if __name__ == "__main__":
    asyncio.run(main())
