"""Publish a verified release to the Hugging Face Hub as a dataset repo, in one commit.

Nothing is sent unless the release verifies (checksums, schemas, answers) and its dataset card's
YAML configs point at files it holds. The token (argument, ``HF_TOKEN`` or the saved login) only
ever travels in the Authorization header: it is never written, printed, logged or put in an error.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from mnemoforge import __version__, yaml_io
from mnemoforge.exporters.release import MANIFEST
from mnemoforge.hashing import sha256_file
from mnemoforge.validators.release_check import verify_release

_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
REPO_ID = re.compile(rf"^{_PART}/{_PART}$")
_BEARER = re.compile(r"(?i)\bbearer\s+[^\s'\",}]+")
_HF_TOKEN_SHAPE = re.compile(r"\bhf_[A-Za-z0-9]{8,}")


class PushError(RuntimeError):
    """The release was not (fully) published; the message names every problem (never the token)."""


@dataclass(frozen=True)
class PlannedFile:
    path_in_repo: str
    local_path: Path
    bytes: int
    sha256: str


@dataclass
class PushResult:
    repo_id: str
    url: str
    commit: str | None
    files: list[PlannedFile]
    bytes: int
    commit_url: str | None = None
    commit_message: str = ""
    commit_description: str = ""  # "MANIFEST.json sha256 <hex>": the digest to pin the release by
    revision: str = "main"
    private: bool = False
    dry_run: bool = False
    endpoint: str | None = None


def upload_plan(release_dir: Path) -> list[PlannedFile]:
    """Every file of the release (as listed in MANIFEST.json, plus the manifest itself), sorted by path."""
    root = Path(release_dir)
    manifest = json.loads((root / MANIFEST).read_text())
    if bad := [r for r in manifest["files"] if r.startswith("/") or ".." in r.split("/") or "\\" in r]:
        raise PushError(f"{MANIFEST}: paths outside the release: {', '.join(sorted(bad))}")
    plan = [
        PlannedFile(rel, root / rel, int(e["bytes"]), str(e["sha256"]))
        for rel, e in manifest["files"].items()
        if rel != MANIFEST
    ]
    mpath = root / MANIFEST
    plan.append(PlannedFile(MANIFEST, mpath, mpath.stat().st_size, sha256_file(mpath)))
    return sorted(plan, key=lambda f: f.path_in_repo)


def check_repo_id(repo_id: str) -> list[str]:
    """Problems with ``repo_id`` (must be ``ORG/NAME`` in the Hub's spelling rules); empty if fine."""
    if not isinstance(repo_id, str) or not REPO_ID.match(repo_id):
        return [f"repo id {repo_id!r}: expected ORG/NAME (letters, digits, '-', '_', '.'; ≤ 96 each)"]
    if "--" in repo_id or ".." in repo_id or repo_id.endswith(".git"):
        return [f"repo id {repo_id!r}: '--', '..' and a trailing '.git' are not allowed"]
    return []


def check_card_yaml(release_dir: Path) -> list[str]:
    """Check README.md's YAML front matter: a mapping whose ``configs`` have data files in the release."""
    root = Path(release_dir)
    card = root / "README.md"
    if not card.is_file():
        return ["README.md: missing (the dataset card)"]
    text = card.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?\n)---\n", text, re.S)
    if not m:
        return ["README.md: no YAML front matter (--- … ---) at the top"]
    try:
        meta = yaml_io.safe_load(m.group(1))
    except yaml.YAMLError as e:
        return [f"README.md: front matter is not valid YAML: {e}"]
    if not isinstance(meta, dict):
        return ["README.md: front matter must be a mapping"]
    problems = [] if meta.get("license") else ["README.md: front matter has no license"]
    configs = meta.get("configs") or []
    if not isinstance(configs, list) or not configs:
        return [*problems, "README.md: configs: expected a non-empty list"]
    names: set[str] = set()
    for i, cfg in enumerate(configs):
        where = f"README.md: configs.{i}"
        if not isinstance(cfg, dict) or not cfg.get("config_name"):
            problems.append(f"{where}: expected a mapping with config_name")
            continue
        if cfg["config_name"] in names:
            problems.append(f"{where}: duplicate config_name {cfg['config_name']!r}")
        names.add(cfg["config_name"])
        files = cfg.get("data_files")
        entries = files if isinstance(files, list) else [files]
        for j, df in enumerate(entries):
            paths = df.get("path") if isinstance(df, dict) else df
            for p in paths if isinstance(paths, list) else [paths]:
                if not isinstance(p, str) or not p:
                    problems.append(f"{where}.data_files.{j}: expected a path")
                elif not _data_files_exist(root, p):
                    problems.append(f"{where}.data_files.{j}: {p}: no such file in the release")
    return problems


def _data_files_exist(root: Path, pattern: str) -> bool:
    """Whether ``pattern`` (a release-relative path or glob) names at least one file."""
    if any(c in pattern for c in "*?["):
        return any(p.is_file() for p in root.glob(pattern))
    return (root / pattern).is_file()


def _known_secrets(token: str | None) -> list[str]:
    found = [token] if token else []
    try:
        from huggingface_hub import get_token

        if resolved := get_token():
            found.append(resolved)
    except Exception:  # redaction must never fail
        pass
    return found


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with every known secret and anything token-shaped replaced by ``***``."""
    for s in sorted(secrets, key=len, reverse=True):
        text = text.replace(s, "***")
    return _HF_TOKEN_SHAPE.sub("hf_***", _BEARER.sub("Bearer ***", text))


def push_release(
    release_dir: Path,
    repo_id: str,
    *,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    endpoint: str | None = None,
    revision: str = "main",
    commit_message: str | None = None,
) -> PushResult:
    """Verify ``release_dir`` and upload all of its files to the dataset repo ``repo_id`` in one commit.

    ``dry_run`` verifies and returns the plan without touching the network. ``endpoint`` defaults
    to ``HF_ENDPOINT`` (read now) and then huggingface_hub's default; ``token`` to huggingface_hub's
    own resolution (``HF_TOKEN``, then the saved login).
    """
    root = Path(release_dir)
    problems = check_repo_id(repo_id)
    release_problems = verify_release(root)
    problems += release_problems
    if not release_problems:
        problems += check_card_yaml(root)
    if problems:
        listed = "".join(f"\n  - {p}" for p in problems)
        raise PushError(f"refusing to push {root} ({len(problems)} problem(s)):{listed}")
    manifest = json.loads((root / MANIFEST).read_text())
    # the MANIFEST's own digest pins the whole release (it lists every other file's sha256)
    pin = f"MANIFEST.json sha256 {sha256_file(root / MANIFEST)}"
    message = commit_message or f"mnemoforge release {manifest['name']} {manifest['version']}"
    plan = upload_plan(root)
    total = sum(f.bytes for f in plan)
    endpoint = (endpoint or os.environ.get("HF_ENDPOINT") or "").rstrip("/") or None
    result = PushResult(
        repo_id,
        "",
        None,
        plan,
        total,
        commit_message=message,
        commit_description=pin,
        revision=revision,
        private=private,
        dry_run=dry_run,
        endpoint=endpoint,
    )
    if dry_run:
        return result
    try:
        _upload(result, token)
    except PushError as e:
        raise PushError(redact(str(e), _known_secrets(token))) from None
    except Exception as e:  # re-raised without the chain, which may carry the token
        detail = redact(f"{type(e).__name__}: {e}", _known_secrets(token))
        status = getattr(getattr(e, "response", None), "status_code", None)
        if status in (401, 403):
            detail += f"\n(is the token valid, with write access to {repo_id.split('/')[0]}?)"
        raise PushError(f"push of {root} to {repo_id} failed: {detail}") from None
    return result


def _upload(result: PushResult, token: str | None) -> None:
    """Create the repo (and branch) and commit every planned file; fills in url and commit."""
    from huggingface_hub import CommitOperationAdd, HfApi, get_token

    if token is None and get_token() is None:
        raise PushError("no Hugging Face token: pass token=, set HF_TOKEN, or run `hf auth login`")
    plan = result.files
    api = HfApi(endpoint=result.endpoint, token=token, library_name="mnemoforge", library_version=__version__)
    ops = [CommitOperationAdd(path_in_repo=f.path_in_repo, path_or_fileobj=str(f.local_path)) for f in plan]
    changed = [
        p.path_in_repo for p, o in zip(plan, ops, strict=True) if o.upload_info.sha256.hex() != p.sha256
    ]
    if changed:  # altered after verification: never publish bytes the manifest does not vouch for
        raise PushError("files changed since verification: " + ", ".join(changed))
    repo = result.repo_id
    url = api.create_repo(repo, repo_type="dataset", private=result.private, exist_ok=True)
    result.url = str(url)
    if result.revision != "main" and not result.revision.startswith("refs/"):
        api.create_branch(repo, branch=result.revision, repo_type="dataset", exist_ok=True)
    info = api.create_commit(
        repo,
        ops,
        commit_message=result.commit_message,
        commit_description=result.commit_description or None,
        repo_type="dataset",
        revision=result.revision,
    )
    result.commit = getattr(info, "oid", None)
    result.commit_url = getattr(info, "commit_url", None)
