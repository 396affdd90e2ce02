"""The worked example of docs/production.md: a paid build against loopback servers, start to finish.

A small album (the starter theme at 8 clips, 320x180) with every medium on a model API (Gemini
images, Veo clips, Gemini TTS), all served by ``tests/media_servers.py`` on 127.0.0.1, which
refuses about one Veo request in twenty as a safety filter would. The script prints what a user
sees at each step:

1. ``mnemoforge build THEME --preflight`` (the estimate and its cost drivers);
2. a build in a subprocess, killed with SIGKILL while it polls a Veo operation;
3. the same command again (it resumes: the operation in flight is polled, not submitted again);
4. ``mnemoforge ledger RUN --preflight`` (what was paid beside the estimate);
5. the release's changelog lines about the video fallbacks.

    .venv/bin/python benchmarks/paid_walkthrough.py [--clips 8] [--keep DIR]

No network, no key (the loopback server takes any key).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import small_theme_data  # noqa: E402
from tests.media_servers import MediaServer  # noqa: E402

FAST = {"base_delay": 0.0, "jitter": 0.0}


def refuse(req: dict) -> dict | None:
    """One still in twenty is refused while its prompt describes people (a rewrite passes)."""
    inst = req["instances"][0]
    still = int(hashlib.sha256(inst["image"]["bytesBase64Encoded"].encode()).hexdigest(), 16)
    if still % 20 == 3 and "Person 1" in inst["prompt"]:
        return {"filtered": ["The prompt describes a person's likeness (support code 58061214)."]}
    return None


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mnemoforge.cli", *args], env=env, capture_output=True, text=True
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=8)
    ap.add_argument("--keep", type=Path, default=None)
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mf-paid-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GEMINI_API_KEY": "loopback-key", "COLUMNS": "160"}
    with MediaServer(polls_until_done=2) as srv:
        srv.refuse = refuse
        data = small_theme_data(clips=args.clips)
        api = {"base_url": srv.url, "retry": FAST}
        data["render"] = {
            "image": "gemini",
            "image_api": api,
            "video": "veo",
            "video_api": {**api, "poll_interval_s": 0, "max_retries": 1},
            "speech": "gemini",
            "speech_api": api,
        }
        theme = work / "paid.yaml"
        theme.write_text(yaml.safe_dump(data, sort_keys=False))
        out = work / "outputs"
        print("$ mnemoforge build paid.yaml --preflight")
        print(cli("build", str(theme), "--preflight", env=env).stdout)
        build = ["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--workers", "1"]
        srv.hold_polls = True
        cmd = [sys.executable, "-m", "mnemoforge.cli", *build, "--quiet"]
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        proc = subprocess.Popen(cmd, env=env, start_new_session=True, **pipes)  # type: ignore[call-overload]
        while srv.polls_held == 0 and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        started = srv.count("predictLongRunning")
        print(f"$ mnemoforge build ... (killed with SIGKILL while polling; {started} "
              "Veo request(s) submitted so far)\n")  # fmt: skip
        srv.hold_polls = False
        srv.release.set()
        print("$ mnemoforge build ... (again: it resumes)")
        res = cli(*build, "--quiet", env=env)
        print(res.stdout or res.stderr)
        run = next(p for p in (out / "runs").iterdir() if p.is_dir())
        most = max(srv.submissions.values())
        print(f"Veo requests submitted: {srv.count('predictLongRunning')}, distinct idempotency keys: "
              f"{len(srv.submissions)}, most starts of one key: {most}\n")  # fmt: skip
        print("$ mnemoforge ledger RUN --preflight")
        print(cli("ledger", str(run), "--preflight", env=env).stdout)
        release = Path(res.stdout.strip().splitlines()[-1])
        print("$ grep -A3 Video RELEASE/CHANGELOG.md")
        lines = (release / "CHANGELOG.md").read_text().splitlines()
        at = next((i for i, line in enumerate(lines) if "Video:" in line), None)
        print("\n".join(lines[at : at + 3]) if at is not None else "(no video line)")
    print(f"\nfolder: {work}")


if __name__ == "__main__":
    main()
