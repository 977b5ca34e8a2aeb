"""
The README's curl walkthrough in Python: turn recording on, mint a writer token, append turns,
search them (hybrid, lexical), read the thread back. Needs an admin token in LOOM_TOKEN.

    LOOM_TOKEN=$(cat .loom/admin-token) python3 examples/quickstart.py
"""

import os

from loom import Client


def main() -> None:
    namespace = os.environ.get("LOOM_NAMESPACE", "acme")
    admin = Client(os.environ.get("LOOM_URL", "http://127.0.0.1:7777"), namespace=namespace)

    # Recording is off until the namespace's owner (an admin) turns it on.
    admin.set_logging(True)
    # A token for an agent: writer role, one namespace. Shown once.
    writer = Client(admin.base_url, admin.token_create("writer", label="quickstart").token, namespace=namespace)

    # msg_id makes retries idempotent; without one, Loom derives it from thread + role + content.
    first = writer.append("thread-42", "user", "We moved invoices to the new ledger.", msg_id="u-1")
    again = writer.append("thread-42", "user", "We moved invoices to the new ledger.", msg_id="u-1")
    print(first.stored, again.stored, again.reason)  # True False duplicate
    writer.append("thread-42", "assistant", "Noted; the export job reads ledger_v2 from now on.", msg_id="a-1")

    # By meaning and by words (hybrid, the default), or by words alone (lexical).
    for mode in ("hybrid", "lexical"):
        found = writer.search("which ledger do invoices use", search_mode=mode, namespace_scope="namespace", limit=5)
        print(found.mode, [(h.msg_id, h.excerpt) for h in found.hits])

    thread = writer.get("thread-42", include_messages=True, order="desc")
    print(thread.thread.turn_count, [m.msg_id for m in thread.messages or []])
    page = writer.list("thread-42", limit=50)
    print([f"{m.role}: {m.content}" for m in page.messages])
    print([t.thread_id for t in writer.threads(window_days=7).threads])


if __name__ == "__main__":
    main()
