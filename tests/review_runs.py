"""A synthetic run folder of any size for the review page (its benchmark and its race test).

``synthesise_run(root, shots=2800, items=1200)`` writes what ``review_data`` reads: ``run.json``,
the World's people/places/objects, clips with shots and speech lines, observations, candidate
items citing them, gate verdicts (some rejections) and media: one real PNG still and anchor and
one real H.264 clip, hard-linked for every shot and clip (the page loads them lazily, so their
count is what matters, not their variety). Nothing here is a build: no theme, no stages.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import random
import subprocess
from pathlib import Path

from PIL import Image, ImageDraw

PEOPLE = ("p_ana", "p_ben", "p_cleo", "p_dev", "p_eli", "p_fay")
PLACES = ("pl_cafe", "pl_park", "pl_flat", "pl_office", "pl_gym")
GATES = ("option_only", "text_only_clue", "modality_necessity", "category_quota")


def _png(colour: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    img = Image.new("RGB", size, colour)
    ImageDraw.Draw(img).ellipse(
        (size[0] // 3, size[1] // 4, 2 * size[0] // 3, 3 * size[1] // 4), fill=(30, 30, 30)
    )
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _mp4(path: Path) -> None:
    from imageio_ffmpeg import get_ffmpeg_exe

    cmd = [get_ffmpeg_exe(), "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
           "color=c=gray:s=160x90:d=1:r=12", "-c:v", "libx264", "-preset", "ultrafast",
           "-pix_fmt", "yuv420p", str(path)]  # fmt: skip
    subprocess.run(cmd, check=True)


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists():
        os.link(src, dst)


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def synthesise_run(root: Path, shots: int = 2800, items: int = 1200, clips: int = 840, seed: int = 0) -> Path:
    """A run folder at ``root`` with ``shots`` shots over ``clips`` clips and ``items`` candidates."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "run.json").write_text(json.dumps({"run_id": root.name, "theme": "synthetic", "seed": seed}))
    world = {
        "people": [{"id": p, "name": p[2:].title()} for p in PEOPLE],
        "places": [{"id": p, "name": p[3:].title()} for p in PLACES],
        "objects": [{"id": "o_mug", "name": "mug"}],
    }
    (root / "world").mkdir(exist_ok=True)
    (root / "world/world.json").write_text(json.dumps(world))
    media = root / "media"
    (media / "shots").mkdir(parents=True, exist_ok=True)
    still, anchor, clip_mp4 = media / ".still.png", media / ".anchor.png", media / ".clip.mp4"
    still.write_bytes(_png((120, 160, 200), (320, 180)))
    anchor.write_bytes(_png((200, 170, 140), (128, 128)))
    _mp4(clip_mp4)
    index = []
    for p in PEOPLE:
        _link(anchor, media / "anchors" / f"{p}.png")
        index.append({"path": f"media/anchors/{p}.png", "kind": "face_anchor"})
    (media / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in index))
    start = dt.datetime(2025, 5, 1, 9, 0)
    per_clip = [shots // clips + (1 if c < shots % clips else 0) for c in range(clips)]
    clip_rows, obs, shot_ids, line_ids = [], [], [], []
    for c, n in enumerate(per_clip):
        cid, when = f"c{c:04d}", start + dt.timedelta(hours=10 * c)
        place = PLACES[c % len(PLACES)]
        cast = rng.sample(PEOPLE, 3)
        shot_rows = []
        for s in range(n):
            sid = f"{cid}_s{s:02d}"
            visible = cast[: 1 + (s % 3)]
            lines = [
                {"id": f"{sid}_l{j}", "speaker": visible[j % len(visible)], "text": f"Line {j} of {sid}."}
                for j in range(rng.randint(0, 2))
            ]
            shot_rows.append(
                {"id": sid, "place": place, "visible": visible, "props": ["o_mug"], "composition": "medium",
                 "camera": "static", "time_of_day": "morning", "duration_s": 4, "dialogue": lines}
            )  # fmt: skip
            _link(still, media / "shots" / f"{sid}.png")
            obs.append({"id": sid, "kind": "shot", "timestamp": when.isoformat(), "content": f"shot {sid}",
                        "media": [f"media/shots/{sid}.png"]})  # fmt: skip
            shot_ids.append(sid)
            for ln in lines:
                obs.append(
                    {"id": ln["id"], "kind": "speech", "timestamp": when.isoformat(), "content": ln["text"]}
                )
                line_ids.append(ln["id"])
        _link(clip_mp4, media / "clips" / f"{cid}.mp4")
        clip_rows.append({"id": cid, "start": when.isoformat(), "shots": shot_rows})
    _jsonl(root / "episodes/clips.jsonl", clip_rows)
    _jsonl(root / "episodes/observations.jsonl", obs)
    candidates, verdicts = [], []
    for i in range(items):
        qid = f"q{i:05d}"
        ev = rng.sample(shot_ids, 2) + (rng.sample(line_ids, 1) if line_ids else [])
        candidates.append(
            {"id": qid, "category": ("recall", "retrieval", "profile")[i % 3],
             "question": f"Who brought the mug in item {i}?", "options": ["Ana", "Ben", "Cleo", "Dev"],
             "answer": "Ana", "target_people": [PEOPLE[i % len(PEOPLE)]], "evidence": ev,
             "evidence_shots": ev[:2]}
        )  # fmt: skip
        if i % 7 == 0:
            verdicts.append(
                {"item": qid, "gate": GATES[i % len(GATES)], "keep": False, "reason": "synthetic"}
            )
    _jsonl(root / "questions/candidates.jsonl", candidates)
    _jsonl(root / "gates/verdicts.jsonl", verdicts)
    return root
