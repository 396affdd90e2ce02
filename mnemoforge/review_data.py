"""What the review page shows, read once from a run folder (``review_server`` serves it).

Shots come from ``episodes/clips.jsonl`` (still, album clip span, generated clip, the speech lines
with who says them and when, the plan, the people in view with their face anchors, the place and
the day), candidate items from ``questions/candidates.jsonl`` (question, options, answer, evidence
with its media, the automatic gates' rejections, the people, places and day they are about). The
facets (people, places, days, reasons) feed the page's filters. Only paths of files that exist
under the run's ``media/`` are handed out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnemoforge.validators.human_review import REASON_TAGS


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _anchors(run: Path, people: dict[str, str]) -> dict[str, str]:
    """Person id -> the face anchor's run-relative path: the run's anchor map (``media/anchors.json``,
    anchors have opaque file names), else ``media/anchors/<id>.png`` or the media index's
    ``face_anchor`` rows whose file stem is the person id."""
    mapped = _json(run / "media" / "anchors.json")
    out = {str(k): str(v) for k, v in mapped.items()} if isinstance(mapped, dict) else {}
    for row in _jsonl(run / "media" / "index.jsonl"):
        if row.get("kind") == "face_anchor" and Path(str(row["path"])).stem in people:
            out.setdefault(Path(str(row["path"])).stem, str(row["path"]))
    for pid in people:
        p = f"media/anchors/{pid}.png"
        if pid not in out and (run / p).is_file():
            out[pid] = p
    return {pid: p for pid, p in sorted(out.items()) if (run / p).is_file()}


def _video_paths(run: Path) -> dict[str, dict]:
    """Shot id -> how its clip was made (``media/video_paths.json``; absent for ffmpeg-only builds)."""
    log = _json(run / "media" / "video_paths.json") or {}
    return {s["shot"]: s for s in log.get("shots", [])}


def _shot_flags(video: dict | None) -> list[str]:
    if not video or video.get("path") == "veo":
        return []
    reason = video.get("reason") or "error"
    return [f"video: {video['path']} ({reason})"]


def shot_rows(run: Path, names: dict, places: dict, objects: dict) -> list[dict[str, Any]]:
    """One row per shot, in album order."""
    videos = _video_paths(run)
    shots = []
    for clip in _jsonl(run / "episodes/clips.jsonl"):
        t0, day = 0.0, str(clip.get("start", ""))[:10]
        album = f"media/clips/{clip['id']}.mp4"
        drawn = _json(run / "media" / "drawn" / f"{clip['id']}.json") or {}
        starts = {ln["line"]: ln["start_s"] for ln in drawn.get("lines", [])}
        for shot in clip.get("shots", []):
            sid = shot["id"]
            still, generated = f"media/shots/{sid}.png", f"media/veo/{sid}.mp4"
            lines = [
                {
                    "speaker": names.get(ln["speaker"], ln["speaker"]),
                    "text": ln["text"],
                    "at": starts.get(ln["id"]),
                }
                for ln in shot.get("dialogue", [])
            ]
            shots.append(
                {
                    "id": sid,
                    "clip": clip["id"],
                    "day": day,
                    "place": shot.get("place"),
                    "people": list(shot.get("visible", [])),
                    "still": still if (run / still).is_file() else None,
                    "clip_media": album if (run / album).is_file() else None,
                    "generated": generated if (run / generated).is_file() else None,
                    "start_s": round(t0, 3),
                    "duration_s": shot.get("duration_s"),
                    "lines": lines,
                    "plan": {
                        "place": places.get(shot.get("place"), shot.get("place")),
                        "visible": [names.get(p, p) for p in shot.get("visible", [])],
                        "props": [objects.get(o, o) for o in shot.get("props", [])],
                        "composition": shot.get("composition"),
                        "camera": shot.get("camera"),
                        "time_of_day": shot.get("time_of_day"),
                        "blocking": shot.get("blocking"),
                    },
                    "video": videos.get(sid, {}).get("path"),
                    "reasons": _shot_flags(videos.get(sid)),
                }
            )
            t0 += float(shot.get("duration_s") or 0)
    return shots


def item_rows(run: Path, shot_place: dict[str, str], shot_of: dict[str, str]) -> list[dict[str, Any]]:
    """One row per candidate item, in the candidates' order."""
    obs = {o["id"]: o for o in _jsonl(run / "episodes/observations.jsonl")}
    rejected: dict[str, list[str]] = {}
    for v in _jsonl(run / "gates/verdicts.jsonl"):
        if not v.get("keep", True) and v.get("gate") != "human_review":
            rejected.setdefault(v["item"], []).append(f"{v['gate']}: {v['reason']}")
    items = []
    for q in _jsonl(run / "questions/candidates.jsonl"):
        evidence, days, shots = [], [], set(q.get("evidence_shots") or [])
        for e in q.get("evidence", []):
            o = obs.get(e)
            if o is None:
                continue
            days.append(str(o.get("timestamp", ""))[:10])
            if e in shot_of:
                shots.add(shot_of[e])
            evidence.append(
                {
                    "id": e,
                    "kind": o.get("kind"),
                    "content": o.get("content", ""),
                    "media": [m for m in o.get("media", []) if (run / m).is_file()],
                }
            )
        gates = rejected.get(q["id"], [])
        items.append(
            {
                "id": q["id"],
                "category": q.get("category"),
                "question": q.get("question"),
                "options": q.get("options"),
                "answer": q.get("answer"),
                "evidence": evidence,
                "gates": gates,
                "reasons": sorted({g.split(":", 1)[0] for g in gates}),
                "people": list(q.get("target_people", [])),
                "places": sorted({shot_place[s] for s in shots if shot_place.get(s)}),
                "day": max(days) if days else "",
                "shots": sorted(shots),
            }
        )
    return items


def review_data(run: Path) -> dict[str, Any]:
    """Everything the page shows but the decisions (``/api/data`` adds those per request)."""
    world = _json(run / "world/world.json") or {}
    names = {p["id"]: p.get("name", p["id"]) for p in world.get("people", [])}
    places = {p["id"]: p.get("name", p["id"]) for p in world.get("places", [])}
    objects = {o["id"]: o.get("name", o["id"]) for o in world.get("objects", [])}
    shots = shot_rows(run, names, places, objects)
    shot_of = {s["id"]: s["id"] for s in shots}
    for clip in _jsonl(run / "episodes/clips.jsonl"):
        for shot in clip.get("shots", []):
            for ln in shot.get("dialogue", []):
                shot_of[ln["id"]] = shot["id"]
    items = item_rows(run, {s["id"]: s["place"] for s in shots}, shot_of)
    used_people = sorted({p for s in shots for p in s["people"]} | {p for q in items for p in q["people"]})
    used_places = sorted({s["place"] for s in shots if s["place"]} | {p for q in items for p in q["places"]})
    return {
        "run": run.name,
        "tags": list(REASON_TAGS),
        "people": [{"id": p, "name": names.get(p, p)} for p in used_people],
        "places": [{"id": p, "name": places.get(p, p)} for p in used_places],
        "days": sorted({s["day"] for s in shots if s["day"]} | {q["day"] for q in items if q["day"]}),
        "reasons": sorted({r for x in [*shots, *items] for r in x["reasons"]}),
        "anchors": _anchors(run, names),
        "shots": shots,
        "items": items,
    }
