"""
A run in the run ledger: begun with its goal, the session's turns linked to it, and completed
`succeeded` (or `failed` with the error). Needs a writer token in LOOM_TOKEN.

    LOOM_TOKEN=... python3 examples/runs.py
"""

import asyncio
import os

from loom import Agent


async def main() -> None:
    namespace = os.environ.get("LOOM_NAMESPACE", "acme")
    async with Agent(namespace, "local", "support-bot", base_url=os.environ.get("LOOM_URL", "http://127.0.0.1:7777")) as bot:
        async with bot.runs.track("Update the export job") as run:
            work = bot.session("thread-43", user_id="u1", run_id=run.run_id)  # turns linked to the run
            await work.append({"role": "user", "content": "Point the export job at ledger_v2."})
        done = await bot.runs.get(run.run_id)
        print(done.run_id, done.status, done.model_cost)
        print([r.goal for r in (await bot.runs.list()).runs])


if __name__ == "__main__":
    asyncio.run(main())
