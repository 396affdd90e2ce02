"""The environment fails, the user reads one line: a file where --outputs wants a folder, an empty
version folder, a full disk, a read-only outputs folder; `catalog` cannot write; staging folders
of a killed freeze are swept; every release file is readable like any dataset (0644 / 0755 under
umask 022, whatever the umask says otherwise).

The full disk and the read-only folder are real: a 1 MB tmpfs and a read-only bind mount in a
private mount namespace (``unshare``), skipped where the kernel does not allow one.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.store import atomic

from .conftest import ROOT, linked_copy, small_theme_data


def _theme(tmp_path: Path) -> Path:
    theme = tmp_path / "tiny.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(), sort_keys=False))
    return theme


def _one_line(r, code: int, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output and (r.exception is None or isinstance(r.exception, SystemExit))
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines


def test_outputs_naming_a_file_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "outputs.txt"
    f.write_text("not a folder")
    r = CliRunner().invoke(
        app, ["build", str(_theme(tmp_path)), "--outputs", str(f), "--orchestrator", "local"]
    )
    _one_line(r, 2, "--outputs")
    assert f.read_text() == "not a folder"


def test_outputs_below_a_file_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    r = CliRunner().invoke(
        app, ["build", str(_theme(tmp_path)), "--outputs", str(f / "out"), "--orchestrator", "local"]
    )
    _one_line(r, 2, "not a folder")


def test_an_empty_version_folder_is_replaced_and_a_foreign_one_refused(tiny_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import freeze_run

    _, outputs, res = tiny_build
    out = linked_copy(outputs, tmp_path / "outputs")
    run = out / "runs" / res.run_dir.name
    empty = out / "releases" / res.release_dir.parent.name / "7.0.0"
    empty.mkdir(parents=True)
    assert (freeze_run(run, "7.0.0") / "MANIFEST.json").is_file()
    foreign = empty.parent / "8.0.0"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    r = CliRunner().invoke(app, ["freeze", str(run), "--version", "8.0.0"])
    _one_line(r, 2, "is not a release (no MANIFEST.json)")
    assert (foreign / "notes.txt").read_text() == "mine"
    r = CliRunner().invoke(app, ["verify", str(empty.parent / "9.9.9")])
    assert r.exit_code == 1 and "Traceback" not in r.output


def test_catalog_is_truly_read_only(tiny_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, outputs, _ = tiny_build
    target = tmp_path / "dump.csv"
    r = CliRunner().invoke(
        app, ["catalog", f"COPY (SELECT * FROM runs) TO '{target}'", "--outputs", str(outputs)]
    )
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert not target.exists()
    r = CliRunner().invoke(app, ["catalog", "SELECT count(*) FROM runs", "--outputs", str(outputs)])
    assert r.exit_code == 0, r.output


def test_staging_of_a_killed_freeze_is_swept_and_a_live_one_kept(tmp_path: Path) -> None:
    from mnemoforge.exporters.release import sweep_stale_staging
    from mnemoforge.store.locks import file_lock, run_lock_path

    runs, releases = tmp_path / "runs", tmp_path / "releases" / "tiny"
    dead = releases / ".tmp-0.1.0.tiny-s1-aaaaaaaaaa.x1y2"
    live = releases / ".tmp-0.1.0.tiny-s2-bbbbbbbbbb.z3w4"
    for d in (dead, live):
        (d / "data").mkdir(parents=True)
    # a live build of the second run holds its lock in another process
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from mnemoforge.store.locks import file_lock\n"
            "with file_lock(Path(sys.argv[1]), 'run'):\n print('held', flush=True); time.sleep(60)",
            str(run_lock_path(runs, "tiny-s2-bbbbbbbbbb")),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert sweep_stale_staging(releases, runs) == [dead]
        assert live.is_dir() and not dead.exists()
    finally:
        holder.kill()
        holder.wait()
    with file_lock(run_lock_path(runs, "tiny-s9-cccccccccc"), "run"):  # this process's own run
        mine = releases / ".tmp-0.1.0.tiny-s9-cccccccccc.q"
        mine.mkdir()
        assert sweep_stale_staging(releases, runs) == [live]
        assert mine.is_dir()


def test_release_files_are_readable_like_any_dataset(tiny_build) -> None:  # type: ignore[no-untyped-def]
    _, outputs, res = tiny_build
    want_file, want_dir = atomic.file_mode(), atomic.dir_mode()
    for root in (res.release_dir, res.run_dir):
        for p in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(p.stat().st_mode)
            if p.is_dir():
                assert mode == want_dir, (p, oct(mode))
            elif not p.name.endswith(".lock"):
                assert mode == want_file, (p, oct(mode))


def test_atomic_writes_honour_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        p = atomic.write_text(tmp_path / "a.txt", "x")
        assert stat.S_IMODE(p.stat().st_mode) == 0o640
    finally:
        os.umask(old)
    p = atomic.write_text(tmp_path / "b.txt", "x")
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~old


def _unshare_ok() -> bool:
    if shutil.which("unshare") is None:
        return False
    r = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True, check=False
    )
    return r.returncode == 0


needs_ns = pytest.mark.skipif(not _unshare_ok(), reason="needs unshare (user and mount namespaces)")


def _in_namespace(script: str, tmp_path: Path, theme: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "THEME": str(theme), "MNT": str(tmp_path / "mnt"), "PY": sys.executable}
    (tmp_path / "mnt").mkdir(exist_ok=True)
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "bash", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )


BUILD = '"$PY" -m mnemoforge.cli build "$THEME" --outputs "$MNT/out" --orchestrator local --workers 1 --quiet'


@pytest.mark.integration
@needs_ns
def test_full_disk_is_one_line(tmp_path: Path) -> None:
    r = _in_namespace(f'mount -t tmpfs -o size=1m none "$MNT" && {BUILD}', tmp_path, _theme(tmp_path))
    err = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    assert err and err[-1].startswith("error: ") and "the disk is full" in err[-1], err[-5:]


@pytest.mark.integration
@needs_ns
def test_read_only_outputs_folder_is_one_line(tmp_path: Path) -> None:
    ro = (
        f'mount -t tmpfs none "$MNT" && mkdir "$MNT/out" && mount -o bind,ro "$MNT/out" "$MNT/out" && {BUILD}'
    )
    r = _in_namespace(ro, tmp_path, _theme(tmp_path))
    err = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    assert err == [err[-1]] and "read-only" in err[-1], err
