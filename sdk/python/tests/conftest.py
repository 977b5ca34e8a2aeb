"""
The SDK's tests run against a live Loom: LOOM_URL and LOOM_TOKEN (an admin token for every
namespace, as `loom up` prints) must be set. `npm test` starts one (e2e/python-sdk.e2e-spec.ts).
Each test works in a namespace of its own, so tests never see each other's turns.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

# The tests exercise the sources beside them unless the installed package is asked for.
if os.environ.get("LOOM_SDK_TEST_INSTALLED") != "1":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loom import Client  # noqa: E402


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError(f"{name} is not set: these tests run against a live Loom (LOOM_URL, and an admin token in LOOM_TOKEN)")
    return value


@pytest.fixture(scope="session")
def loom_url() -> str:
    return _env("LOOM_URL")


@pytest.fixture(scope="session")
def admin_token() -> str:
    return _env("LOOM_TOKEN")


@pytest.fixture
def namespace() -> str:
    return f"py-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def admin(loom_url: str, admin_token: str, namespace: str) -> Client:
    return Client(loom_url, admin_token, namespace=namespace)


@pytest.fixture
def recording(admin: Client) -> Client:
    """The admin client, in a namespace whose owner turned recording on."""
    assert admin.set_logging(True).conversation_logging_enabled is True
    return admin


@pytest.fixture
def token_for(admin: Client) -> Callable[..., str]:
    """Mints a token on the test's namespace: ``token_for("writer")``."""

    def mint(role: str, **options: str) -> str:
        return admin.token_create(role, **options).token

    return mint


@pytest.fixture
def env_for(loom_url: str, namespace: str) -> Iterator[Callable[[str], dict]]:
    """The environment an example script runs with."""

    def make(token: str) -> dict:
        env = {**os.environ, "LOOM_URL": loom_url, "LOOM_TOKEN": token, "LOOM_NAMESPACE": namespace}
        if os.environ.get("LOOM_SDK_TEST_INSTALLED") != "1":
            env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        return env

    yield make
