"""Two review servers on one run, several threads posting decisions to both at once (issue 33
item 3): the race the review store's test and ``benchmarks/faults.py`` both run.

``two_server_race(run)`` starts one in-process ``ReviewServer`` and one ``mnemoforge review``
subprocess on the same run, has ``threads`` threads post ``per_thread`` decisions each (every
thread alternating between the servers, every POST about its own shot or item), stops both and
reads the decisions store back: what was acknowledged, what got no answer or an error, and which
acknowledged decisions are missing or differ in the store.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

THREADS, PER_THREAD = 8, 60


def post(url: str, body: dict, timeout: float = 30) -> tuple[int, dict]:
    """POST one decision to a review server; (HTTP status, JSON reply)."""
    req = urllib.request.Request(url + "api/decision", json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def cli_server(run: Path) -> tuple[subprocess.Popen, str]:
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
        raise RuntimeError(f"the review server did not start: {line!r} {err}")
    return proc, line.split(" at ", 1)[1].split(" ", 1)[0]


@dataclass
class RaceResult:
    posted: int
    acked: dict[tuple[str, str], dict] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # no answer, or an answer other than 200
    lost: list[tuple[str, str]] = field(default_factory=list)  # acknowledged, not in the store
    differ: list[tuple[str, str]] = field(default_factory=list)  # in the store with other content


def two_server_race(run: Path, threads: int = THREADS, per_thread: int = PER_THREAD) -> RaceResult:
    """Run the race on ``run`` (a run folder with at least ``threads * per_thread`` shots and items)."""
    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import load_decisions

    shots = [s["id"] for line in (run / "episodes/clips.jsonl").read_text().splitlines()
             for s in json.loads(line)["shots"]]  # fmt: skip
    items = [json.loads(x)["id"] for x in (run / "questions/candidates.jsonl").read_text().splitlines()]
    targets = [("shot", i) for i in shots] + [("item", i) for i in items]
    if len(targets) < threads * per_thread:
        raise ValueError(f"{run}: {len(targets)} shots and items, the race needs {threads * per_thread}")
    result = RaceResult(posted=threads * per_thread)
    here = ReviewServer(run).start()
    proc, there = cli_server(run)
    lock = threading.Lock()

    def worker(t: int) -> None:
        for n in range(per_thread):
            kind, oid = targets[t * per_thread + n]
            body = {"kind": kind, "id": oid, "decision": "exclude" if n % 3 else "pass",
                    "reasons": ["face_drift"] if n % 3 else [], "note": f"thread {t} post {n}"}  # fmt: skip
            url = here.url if (t + n) % 2 else there  # every thread alternates between the servers
            try:
                status, out = post(url, body)
            except OSError as e:  # no answer at all
                with lock:
                    result.failures.append(f"{kind}:{oid}: {e}")
                continue
            with lock:
                if status == 200:
                    result.acked[(kind, oid)] = body
                else:
                    result.failures.append(f"{kind}:{oid}: HTTP {status} {out}")

    try:
        pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
        for th in pool:
            th.start()
        for th in pool:
            th.join(timeout=300)
    finally:
        here.stop()
        proc.terminate()
        proc.wait(timeout=30)
    saved = load_decisions(run)
    result.lost = [k for k in result.acked if k not in saved]
    result.differ = [
        k
        for k, body in result.acked.items()
        if k in saved and (saved[k].note != body["note"] or saved[k].decision != body["decision"])
    ]
    return result
