"""The examples run as a reader runs them: `python3 examples/<name>.py` against a live Loom."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Callable

from loom import Client

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str, env: dict) -> list:
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_SDK_SESSION_01_08_the_specs_session_example_runs_as_written(admin: Client, token_for: Callable[..., str], env_for: Callable[[str], dict]) -> None:
    out = run_example("session", env_for(token_for("writer")))
    # The namespace does not record (the default), so the example prints False.
    assert out[-2:] == ["False", "auto/billing/ledger-move model"]
    admin.set_logging(True)
    out = run_example("session", env_for(token_for("writer")))
    assert out[-2:] == ["True", "auto/billing/ledger-move model"]
    # The second run revised the same brief (auto/<project>/<branch>): revision 2.
    assert admin.brief_get(brief_key="auto/billing/ledger-move", agent="support-bot").revision == 2


def test_issue_12_the_readme_walkthrough_in_python_runs(admin_token: str, env_for: Callable[[str], dict]) -> None:
    out = run_example("quickstart", env_for(admin_token))
    assert out[0] == "True False duplicate"
    assert out[1].startswith("hybrid [('u-1'") and out[2].startswith("lexical [")
    assert out[3] == "2 ['a-1', 'u-1']"


def test_SAVE_SAVE_02_the_saved_messages_example_runs(token_for: Callable[..., str], env_for: Callable[[str], dict]) -> None:
    out = run_example("saved_messages", env_for(token_for("writer")))
    assert out[0].startswith("True True ")
    assert out[1] == "lexical [('a-7', 'Run the PROJ-1234 backfill against ledger_v2.', ['lexical'])]"
    assert out[3:] == ["{'a-7': True, 'u-1': False}", "True True"]


def test_RUNS_01_the_runs_example_runs(token_for: Callable[..., str], env_for: Callable[[str], dict]) -> None:
    out = run_example("runs", env_for(token_for("writer")))
    assert out[0].endswith(" succeeded None") and out[1] == "['Update the export job']"


def test_issue_12_the_package_under_test_is_the_installed_one_when_asked() -> None:
    import os

    import loom

    source = Path(__file__).resolve().parent.parent / "loom"
    from_source = Path(loom.__file__).resolve().parent == source
    # LOOM_SDK_TEST_INSTALLED=1 (the pip install test) must exercise the installed copy, never the sources.
    assert from_source is (os.environ.get("LOOM_SDK_TEST_INSTALLED") != "1")
