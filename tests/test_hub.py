"""Publishing a release to the Hub, against a loopback stand-in for the Hub's HTTP API (no network)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemoforge.exporters import hub as hubmod
from mnemoforge.exporters.hub import PushError, check_card_yaml, check_repo_id, push_release, upload_plan
from mnemoforge.hashing import sha256_file
from mnemoforge.validators.release_check import verify_release
from tests.conftest import caller_hf_vars
from tests.hub_server import HubServer

huggingface_hub = pytest.importorskip("huggingface_hub")
hf_constants = pytest.importorskip("huggingface_hub.constants")

TOKEN = "hf_mnemoforgeFAKEtoken0123456789abcdef"
ENV_TOKEN = "hf_mnemoforgeENVtoken9876543210fedcba"
PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(scope="module")
def release(tiny_build) -> Path:  # type: ignore[no-untyped-def]
    root = tiny_build[2].release_dir  # a small album, built once per session (tests/conftest.py)
    assert verify_release(root) == []
    return root


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubServer]:
    """A fresh loopback Hub; HF_ENDPOINT points at it, HF_TOKEN is a fake, no saved login is read."""
    for var in (*PROXIES, "HF_HUB_OFFLINE", "HF_OIDC_RESOURCE", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "HF_TOKEN_PATH", str(tmp_path / "no-saved-token"))
    monkeypatch.setenv("HF_TOKEN", ENV_TOKEN)
    with HubServer() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


@pytest.fixture
def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything builds a Hub client."""

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("a Hub client was created")

    monkeypatch.setattr(huggingface_hub, "HfApi", boom)


def manifest_files(root: Path) -> dict[str, dict]:
    return json.loads((root / "MANIFEST.json").read_text())["files"]


def altered_copy(release: Path, dest: Path, rel: str) -> Path:
    """Copy the release and alter ``rel`` in the copy (the original's media are hard links into the run)."""
    out = shutil.copytree(release, dest / "release")
    p = out / rel
    data = p.read_bytes()
    p.write_bytes(data.replace(b"e", b"E", 1) if b"e" in data else data + b"\n")
    return out


def test_dry_run_lists_every_file_and_sends_nothing(release: Path, hub: HubServer, no_client: None) -> None:
    result = push_release(release, "mnemo-org/hubdemo", dry_run=True, private=True)
    on_disk = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    paths = [f.path_in_repo for f in result.files]
    assert paths == sorted(on_disk) and set(paths) == set(manifest_files(release)) | {"MANIFEST.json"}
    listed = manifest_files(release)
    for f in result.files:
        assert f.local_path == release / f.path_in_repo and f.bytes == f.local_path.stat().st_size
        if f.path_in_repo != "MANIFEST.json":
            assert (f.sha256, f.bytes) == (listed[f.path_in_repo]["sha256"], listed[f.path_in_repo]["bytes"])
    assert result.bytes == sum(f.bytes for f in result.files)
    assert result.dry_run and result.commit is None and result.url == ""
    assert result.commit_message == "mnemoforge release tiny 0.1.0"
    assert upload_plan(release) == result.files
    assert hub.requests == []


def test_push_uploads_every_file_byte_identical_in_one_commit(release: Path, hub: HubServer) -> None:
    result = push_release(release, "mnemo-org/hubdemo", private=True)  # endpoint and token from the env
    repo = hub.repos["mnemo-org/hubdemo"]
    assert repo.type == "dataset" and repo.private
    create = json.loads(hub.requests[0].body)
    assert create == {
        "name": "hubdemo",
        "organization": "mnemo-org",
        "visibility": "private",
        "type": "dataset",
    }
    assert [r.route for r in hub.requests].count("commit") == 1 and len(hub.commits) == 1
    routes = [r.route for r in hub.requests]
    order = [routes.index(r) for r in ("create", "validate-yaml", "preupload", "commit")]
    assert order == sorted(order)  # create repo, validate the card's YAML, preupload, commit
    commit = hub.commits[0]
    assert commit["summary"] == "mnemoforge release tiny 0.1.0" and commit["revision"] == "main"
    received = hub.files("mnemo-org/hubdemo")
    listed = manifest_files(release)
    assert set(received) == set(listed) | {"MANIFEST.json"}
    for rel, data in received.items():
        if rel == "MANIFEST.json":
            assert data == (release / rel).read_bytes()
        else:
            assert hashlib.sha256(data).hexdigest() == listed[rel]["sha256"]
            assert len(data) == listed[rel]["bytes"]
    assert result.commit == commit["oid"] and result.commit_url.endswith(commit["oid"])
    assert result.url == f"{hub.url}/datasets/mnemo-org/hubdemo"
    assert result.bytes == sum(len(d) for d in received.values()) and len(result.files) == len(received)


def test_public_push_to_a_branch_with_a_custom_message(release: Path, hub: HubServer) -> None:
    result = push_release(
        release,
        "mnemo-org/hubdemo",
        endpoint=hub.url,
        token=TOKEN,
        revision="v0.1.0",
        commit_message="first cut",
    )
    repo = hub.repos["mnemo-org/hubdemo"]
    assert not repo.private and json.loads(hub.requests[0].body)["visibility"] == "public"
    assert [c["summary"] for c in hub.commits] == ["first cut"] and hub.commits[0]["revision"] == "v0.1.0"
    pin = f"MANIFEST.json sha256 {sha256_file(release / 'MANIFEST.json')}"
    assert hub.commits[0]["description"] == pin == result.commit_description  # the release's pin
    assert hub.files("mnemo-org/hubdemo", "v0.1.0").keys() == {f.path_in_repo for f in result.files}
    assert hub.files("mnemo-org/hubdemo") == {}
    # pushing the same release again reuses the repo (exist_ok) and makes a second commit
    push_release(release, "mnemo-org/hubdemo", endpoint=hub.url, token=TOKEN)
    assert len(hub.repos) == 1 and len(hub.commits) == 2


def assert_nowhere(secret: str, *texts: str) -> None:
    for text in texts:
        assert secret not in text


def test_token_travels_only_in_the_authorization_header(
    release: Path, hub: HubServer, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    result = push_release(release, "mnemo-org/hubdemo", token=TOKEN)
    assert hub.requests
    for r in hub.requests:
        headers = {k.lower(): v for k, v in r.headers.items()}
        assert headers["authorization"] == f"Bearer {TOKEN}"
        assert TOKEN not in r.path and TOKEN.encode() not in r.body
        assert all(TOKEN not in v for k, v in headers.items() if k != "authorization")
    for data in hub.files("mnemo-org/hubdemo").values():
        assert TOKEN.encode() not in data
    for p in release.rglob("*"):
        assert not p.is_file() or TOKEN.encode() not in p.read_bytes()
    out, err = capfd.readouterr()
    logged = [caplog.text, *(r.getMessage() for r in caplog.records)]
    assert_nowhere(TOKEN, out, err, *logged, repr(result), str(result.__dict__))


def test_token_resolved_from_hf_token_env(
    release: Path, hub: HubServer, capfd: pytest.CaptureFixture[str]
) -> None:
    push_release(release, "mnemo-org/hubdemo")
    assert {r.headers.get("authorization") for r in hub.requests} == {f"Bearer {ENV_TOKEN}"}
    assert_nowhere(ENV_TOKEN, *capfd.readouterr())


@pytest.mark.parametrize(
    ("route", "status"), [("*", 401), ("create", 500), ("preupload", 403), ("commit", 500)]
)
@pytest.mark.parametrize("token", [TOKEN, None], ids=["arg", "env"])
def test_server_errors_never_reveal_the_token(
    release: Path,
    hub: HubServer,
    route: str,
    status: int,
    token: str | None,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = token or ENV_TOKEN
    # a hostile server echoing the token in its error body: huggingface_hub puts that text in its exception
    hub.fail[route] = (status, f"credentials Bearer {secret} rejected; token={secret}; raw {secret}")
    with pytest.raises(PushError) as info:
        push_release(release, "mnemo-org/hubdemo", token=token)
    e = info.value
    assert str(status) in str(e) and "mnemo-org/hubdemo" in str(e)
    assert "rejected; token=***; raw ***" in str(e)  # the server's text is kept, the token is not
    assert e.__cause__ is None and e.__suppress_context__
    out, err = capfd.readouterr()
    shown = "".join(traceback.format_exception(e))
    logged = [caplog.text, *(r.getMessage() for r in caplog.records)]
    assert_nowhere(secret, str(e), repr(e), shown, out, err, *logged)
    assert hub.commits == []


def test_no_token_is_refused_before_any_request(
    release: Path, hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_TOKEN")
    with pytest.raises(PushError, match="no Hugging Face token"):
        push_release(release, "mnemo-org/hubdemo")
    assert hub.requests == []


@pytest.mark.integration  # two CLI subprocesses: `hf auth login`, then `mnemoforge push`
def test_push_uses_the_token_saved_by_hf_auth_login(release: Path, hub: HubServer, tmp_path: Path) -> None:
    """No HF_TOKEN: the token `hf auth login` saved under HF_HOME is the one sent, and never printed."""
    hf = Path(sys.executable).with_name("hf")
    if not hf.is_file():
        pytest.skip("the `hf` command of huggingface_hub is not installed")
    # no token, no offline switch (huggingface_hub also reads TRANSFORMERS_OFFLINE), no proxy, no
    # caller's HF_*/TRANSFORMERS_* setting at all: only what this test sets
    drop = set(PROXIES)
    env = {k: v for k, v in os.environ.items() if k not in drop and not caller_hf_vars({k: v})}
    home = tmp_path / "hf-home"
    env.update(HF_HOME=str(home), HF_ENDPOINT=hub.url, NO_PROXY="127.0.0.1,localhost")
    login = subprocess.run(
        [str(hf), "auth", "login", "--token", TOKEN], env=env, capture_output=True, text=True, timeout=120
    )
    assert login.returncode == 0, login.stdout[-2000:] + login.stderr[-2000:]
    assert (home / "token").read_text().strip() == TOKEN  # where huggingface_hub keeps the login
    at_login = list(hub.requests)
    routes = [r.route for r in at_login]
    assert routes.count("whoami") == 1, [(r.method, r.path) for r in at_login]  # login asked the Hub
    assert not {"create", "preupload", "commit"} & set(routes)
    push = subprocess.run(
        [sys.executable, "-m", "mnemoforge.cli", "push", str(release), "--repo-id", "mnemo-org/saved"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert push.returncode == 0, push.stderr[-3000:]
    assert f"pushed {len(upload_plan(release))} files" in push.stdout
    sent = [r for r in hub.requests[len(at_login) :] if r.route != "unknown"]
    assert {r.route for r in sent} >= {"create", "preupload", "commit"}
    for r in sent:
        assert {k.lower(): v for k, v in r.headers.items()}["authorization"] == f"Bearer {TOKEN}"
    assert set(hub.files("mnemo-org/saved")) == set(manifest_files(release)) | {"MANIFEST.json"}
    assert_nowhere(TOKEN, push.stdout, push.stderr)


@pytest.mark.parametrize("rel", ["data/icm/questions.jsonl", "README.md", "media/index.jsonl"])
def test_altered_release_is_refused_before_any_request(
    release: Path, hub: HubServer, no_client: None, tmp_path: Path, rel: str
) -> None:
    copy = altered_copy(release, tmp_path, rel)
    for dry_run in (False, True):
        with pytest.raises(PushError) as info:
            push_release(copy, "mnemo-org/hubdemo", token=TOKEN, dry_run=dry_run)
        assert f"{rel}: checksum mismatch" in str(info.value)
    (copy / "extra.txt").write_text("not in the manifest")
    with pytest.raises(PushError, match="extra.txt: not listed"):
        push_release(copy, "mnemo-org/hubdemo", token=TOKEN)
    assert hub.requests == []
    assert verify_release(release) == []  # the original is untouched


def test_file_changed_after_verification_is_not_sent(
    release: Path, hub: HubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = altered_copy(release, tmp_path, "data/icm/clips.jsonl")
    monkeypatch.setattr(hubmod, "verify_release", lambda root: [])  # as if altered between verify and upload
    with pytest.raises(PushError, match="changed since verification: data/icm/clips.jsonl"):
        push_release(copy, "mnemo-org/hubdemo", token=TOKEN)
    assert hub.requests == []


@pytest.mark.parametrize(
    "repo_id",
    [
        "hubdemo",
        "a/b/c",
        "/hubdemo",
        "org/",
        "-org/x",
        "org/x-",
        "org/na--me",
        "org/a..b",
        "org/x.git",
        "org/has space",
        "org/ü",
        "o/" + "x" * 97,
        "",
    ],
)
def test_bad_repo_id_is_refused(release: Path, hub: HubServer, no_client: None, repo_id: str) -> None:
    with pytest.raises(PushError, match="repo id"):
        push_release(release, repo_id, token=TOKEN)
    with pytest.raises(PushError, match="repo id"):
        push_release(release, repo_id, dry_run=True)
    assert hub.requests == []


def test_good_repo_ids_pass() -> None:
    for repo_id in ("mnemo-org/hubdemo", "Org_1/my.data-set", "a/b", "o/" + "x" * 96):
        assert check_repo_id(repo_id) == []


def test_card_yaml_is_checked_locally(release: Path, tmp_path: Path) -> None:
    assert check_card_yaml(release) == []
    copy = shutil.copytree(release, tmp_path / "release")
    card = copy / "README.md"
    card.write_text(card.read_text().replace("data/icm/clips.parquet", "data/icm/missing.parquet"))
    problems = check_card_yaml(copy)
    assert len(problems) == 1 and "data/icm/missing.parquet: no such file" in problems[0]
    card.write_text(card.read_text().replace("data/icm/missing.parquet", "data/icm/clip*.parquet"))
    assert check_card_yaml(copy) == []
    card.write_text(card.read_text().replace("data/icm/clip*.parquet", "data/none/*.parquet"))
    assert "data/none/*.parquet: no such file" in check_card_yaml(copy)[0]
    card.write_text("# no front matter\n")
    assert check_card_yaml(copy) == ["README.md: no YAML front matter (--- … ---) at the top"]
    card.write_text("---\nconfigs: [\n---\n")
    assert "not valid YAML" in check_card_yaml(copy)[0]


def test_push_command_dry_run_and_upload(
    release: Path, hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    dry = CliRunner().invoke(app, ["push", str(release), "--repo-id", "org/demo", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "MANIFEST.json" in dry.output and "would go to org/demo" in dry.output
    assert not hub.repos
    monkeypatch.setenv("HF_TOKEN", "hf_clitoken0123456789")
    done = CliRunner().invoke(app, ["push", str(release), "--repo-id", "org/demo", "--private"])
    assert done.exit_code == 0, done.output
    assert "pushed" in done.output and "hf_clitoken0123456789" not in done.output
    assert hub.repos and all(r.private for r in hub.repos.values())
    bad = CliRunner().invoke(app, ["push", str(release), "--repo-id", "no-slash"])
    assert bad.exit_code == 1 and "no-slash" in bad.output
