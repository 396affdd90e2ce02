"""The review decisions store: one transaction per decision, durable before the reply, any number of
servers on one run (issue 33 item 3), unknown ids refused, many concurrent connections answered."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.review_runs import synthesise_run

pytestmark = pytest.mark.integration  # loopback servers, one of them a CLI subprocess

THREADS, PER_THREAD = 8, 60


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough shots and items that every POST of the race is about its own shot or item."""
    return synthesise_run(tmp_path_factory.mktemp("review") / "run", shots=300, items=200, clips=60)


def _post(url: str, body: dict, timeout: float = 30) -> tuple[int, dict]:
    req = urllib.request.Request(url + "api/decision", json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _cli_server(run: Path) -> tuple[subprocess.Popen, str]:
    """``mnemoforge review RUN --port 0`` in its own process; returns it and its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mnemoforge.cli", "review", str(run), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    if " at http" not in line:
        proc.kill()
        err = proc.stderr.read() if proc.stderr else ""
        raise AssertionError(f"the review server did not start: {line!r} {err}")
    return proc, line.split(" at ", 1)[1].split(" ", 1)[0]


def test_two_servers_lose_no_acknowledged_decision(big_run: Path, tmp_path: Path) -> None:
    import shutil

    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import load_decisions

    run = Path(shutil.copytree(big_run, tmp_path / "run", symlinks=True))
    data = json.loads((run / "episodes/clips.jsonl").read_text().splitlines()[0])
    assert data["shots"]
    shots = [s["id"] for line in (run / "episodes/clips.jsonl").read_text().splitlines()
             for s in json.loads(line)["shots"]]  # fmt: skip
    items = [json.loads(x)["id"] for x in (run / "questions/candidates.jsonl").read_text().splitlines()]
    targets = [("shot", i) for i in shots] + [("item", i) for i in items]
    assert len(targets) >= THREADS * PER_THREAD
    here = ReviewServer(run).start()
    proc, there = _cli_server(run)
    acked: dict[tuple[str, str], dict] = {}
    failures: list[str] = []
    lock = threading.Lock()

    def worker(t: int) -> None:
        for n in range(PER_THREAD):
            kind, oid = targets[t * PER_THREAD + n]
            body = {"kind": kind, "id": oid, "decision": "exclude" if n % 3 else "pass",
                    "reasons": ["face_drift"] if n % 3 else [], "note": f"thread {t} post {n}"}  # fmt: skip
            url = here.url if (t + n) % 2 else there  # every thread alternates between the servers
            try:
                status, out = _post(url, body)
            except OSError as e:  # no answer at all
                with lock:
                    failures.append(f"{kind}:{oid}: {e}")
                continue
            with lock:
                if status == 200:
                    acked[(kind, oid)] = body
                else:
                    failures.append(f"{kind}:{oid}: HTTP {status} {out}")

    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=300)
    finally:
        here.stop()
        proc.terminate()
        proc.wait(timeout=30)
    assert failures == []
    assert len(acked) == THREADS * PER_THREAD
    saved = load_decisions(run)
    lost = [k for k in acked if k not in saved]
    assert lost == [], f"{len(lost)} acknowledged decisions lost"
    for k, body in acked.items():
        assert saved[k].note == body["note"] and saved[k].decision == body["decision"]


def test_unknown_ids_and_bad_requests_are_refused(big_run: Path, tmp_path: Path) -> None:
    import shutil

    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import decisions_path

    run = Path(shutil.copytree(big_run, tmp_path / "run", symlinks=True))
    srv = ReviewServer(run).start()
    try:
        status, out = _post(srv.url, {"kind": "shot", "id": "c9999_s00", "decision": "pass"})
        assert status == 404 and "no shot 'c9999_s00'" in out["error"]
        status, out = _post(srv.url, {"kind": "item", "id": "c0000_s00", "decision": "pass"})
        assert status == 404  # a shot id is not an item id
        status, out = _post(srv.url, {"kind": "shot", "id": "c0000_s00", "decision": "maybe"})
        assert status == 400 and out["error"].startswith("decision:")
        assert not decisions_path(run).exists()  # nothing refused was written
        status, out = _post(srv.url, {"kind": "shot", "id": "c0000_s00", "decision": "pass"})
        assert status == 200 and out["decision"]["id"] == "c0000_s00"
        assert decisions_path(run).read_text().count("\n") == 1
        # 120 connections at once: every one answered (the listen backlog holds them)
        codes: list[int] = []

        def one(n: int) -> None:
            codes.append(_post(srv.url, {"kind": "item", "id": f"q{n:05d}", "decision": "pass"})[0])

        threads = [threading.Thread(target=one, args=(n,)) for n in range(120)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        assert codes.count(200) == 120
    finally:
        srv.stop()


def test_media_are_served_in_byte_ranges(big_run: Path) -> None:
    from mnemoforge.review_server import ReviewServer

    srv = ReviewServer(big_run).start()
    try:
        whole = urllib.request.urlopen(srv.url + "media/clips/c0000.mp4", timeout=10).read()
        req = urllib.request.Request(srv.url + "media/clips/c0000.mp4", headers={"Range": "bytes=10-19"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 206 and r.headers["Content-Range"] == f"bytes 10-19/{len(whole)}"
            assert r.read() == whole[10:20]
        data = json.loads(urllib.request.urlopen(srv.url + "api/data", timeout=30).read())
        assert len(data["shots"]) == 300 and len(data["items"]) == 200
        assert set(data["anchors"]) == {p["id"] for p in data["people"]}
        assert data["days"] and data["reasons"] and data["places"]
    finally:
        srv.stop()
