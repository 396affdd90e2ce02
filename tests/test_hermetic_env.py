"""The suite is hermetic: Hugging Face / transformers settings in the caller's environment
(``TRANSFORMERS_OFFLINE=1``, ``HF_HOME=/nonexistent``, ``HF_ENDPOINT`` at a dead port, a token ...)
reach no test (``tests/conftest.py`` clears them before huggingface_hub is imported and around
every test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HF_TEST_ENV, caller_hf_vars
from tests.hub_server import HubServer

ROOT = Path(__file__).resolve().parents[1]
CALLER_ENV = {
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_HOME": "/nonexistent/hf-home",
    "HF_HUB_CACHE": "/nonexistent/hf-hub",
    "HF_ENDPOINT": "http://127.0.0.1:9",
    "HF_TOKEN": "hf_callerTOKEN0123456789",
    "HUGGING_FACE_HUB_TOKEN": "hf_callerTOKEN0123456789",
    "TRANSFORMERS_CACHE": "/nonexistent/transformers",
    "SENTENCE_TRANSFORMERS_HOME": "/nonexistent/st",
}


def test_no_caller_hf_setting_reaches_a_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run alone and by the subprocess below: whatever the caller set, a test sees huggingface_hub's
    defaults and can reach a loopback Hub."""
    assert caller_hf_vars() == []
    assert {k: os.environ.get(k) for k in HF_TEST_ENV} == HF_TEST_ENV
    hf_constants = pytest.importorskip("huggingface_hub.constants")
    from huggingface_hub import HfApi

    assert hf_constants.HF_HUB_OFFLINE is False  # neither HF_HUB_OFFLINE nor TRANSFORMERS_OFFLINE
    assert hf_constants.ENDPOINT == "https://huggingface.co"
    assert not str(hf_constants.HF_HOME).startswith("/nonexistent")
    assert not str(hf_constants.HF_HUB_CACHE).startswith("/nonexistent")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with HubServer() as hub:  # a request reaches the endpoint given, not the caller's dead port
        me = HfApi(endpoint=hub.url).whoami(token="hf_testTOKEN0123456789")
    assert me["name"] == "mnemo-user"


def test_caller_hf_vars_names_only_the_callers_settings() -> None:
    env = {**CALLER_ENV, "PATH": "/usr/bin", "HF_HUB_DISABLE_TELEMETRY": "1", "hf_home": "/x"}
    assert caller_hf_vars(env) == sorted([*CALLER_ENV, "hf_home"])


def test_the_suite_ignores_the_callers_hf_and_transformers_variables(tmp_path: Path) -> None:
    """A pytest run started with the caller's variables set passes the checks above."""
    env = {**os.environ, **CALLER_ENV, "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            f"--basetemp={tmp_path / 'inner'}",
            "tests/test_hermetic_env.py::test_no_caller_hf_setting_reaches_a_test",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
