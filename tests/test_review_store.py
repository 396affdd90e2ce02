"""The review decisions store: one transaction per decision, durable before the reply, any number of
servers on one run (issue 33 item 3), unknown ids refused, many concurrent connections answered."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.review_race import PER_THREAD, THREADS, two_server_race
from tests.review_race import post as _post
from tests.review_runs import synthesise_run

pytestmark = pytest.mark.integration  # loopback servers, one of them a CLI subprocess


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough shots and items that every POST of the race is about its own shot or item."""
    return synthesise_run(tmp_path_factory.mktemp("review") / "run", shots=300, items=200, clips=60)


def test_two_servers_lose_no_acknowledged_decision(big_run: Path, tmp_path: Path) -> None:
    import shutil

    run = Path(shutil.copytree(big_run, tmp_path / "run", symlinks=True))
    race = two_server_race(run, THREADS, PER_THREAD)
    assert race.failures == []
    assert len(race.acked) == THREADS * PER_THREAD
    assert race.lost == [], f"{len(race.lost)} acknowledged decisions lost"
    assert race.differ == []


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
