"""The render audit: what each shot drew (boxes, sizes, props, sign, camera framing, speech
timing) compared with what its observations claim.

Design: a mismatch **fails** the render stage naming the shot (``RenderAuditError``); the
observations are never rewritten to fit the pixels. Every person a shot observation lists must
be drawn with their face inside the part of the still that stays in frame for the whole camera
move, at least ``album.min_face_px`` high in close and medium shots; every prop it claims
(``brought`` facts) must be drawn as its kind inside that region; a claimed sign must show the
place's text there; no line of speech may be cut by the end of its shot.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.protocol import Box, SceneLayout, SceneRequest
from mnemoforge.backends.image.scene_props import prop_shape
from mnemoforge.backends.video.specs import EncodeSettings, pan_geometry
from mnemoforge.generators.icm.parts_audit import PartCounts, part_problems
from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

WIDE_MIN_FACE_PX = 14  # faces in wide shots: enough to tell hair, skin and headwear apart
MIN_PROP_PX = 8
SPEECH_TOLERANCE_S = 0.002


class RenderAuditError(RuntimeError):
    """The rendered media contradict the observations; ``problems`` names each shot."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        head = "\n".join(f"  - {p}" for p in problems[:30])
        more = f"\n  ... and {len(problems) - 30} more" if len(problems) > 30 else ""
        super().__init__(
            f"render audit: {len(problems)} mismatch(es) between media and observations:\n{head}{more}"
        )


def camera_windows(camera: str, width: int, height: int, move: float | None = None) -> tuple[Box, Box]:
    """The part of the still the camera shows on the first and the last frame (see clip_command)."""
    m = move or EncodeSettings().move
    full: Box = (0, 0, width, height)
    if camera == "static":
        return full, full
    ww, wh = width / m, height / m
    y0 = (height - wh) / 2
    centred: Box = (round((width - ww) / 2), round(y0), round((width + ww) / 2), round(y0 + wh))
    # pans: the frame-sized crop of the still scaled to (sw, sh), mapped back to still pixels
    sw, sh, top, travel = pan_geometry(width, height, m)
    py0, py1 = round(top * height / sh), round((top + height) * height / sh)
    left: Box = (0, py0, round(width * width / sw), py1)
    right: Box = (round(travel * width / sw), py0, width, py1)
    return {
        "zoom_in": (full, centred),
        "zoom_out": (centred, full),
        "pan_right": (left, right),
        "pan_left": (right, left),
    }[camera]


def camera_safe(camera: str, width: int, height: int, move: float | None = None) -> Box:
    """What stays in frame for the whole move: the intersection of the first and last window
    (windows move and scale linearly, so every frame in between contains it)."""
    a, b = camera_windows(camera, width, height, move)
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def _inside(box: Box | None, safe: Box) -> bool:
    return (
        box is not None
        and box[0] >= safe[0]
        and box[1] >= safe[1]
        and box[2] <= safe[2]
        and box[3] <= safe[3]
    )


def drawn_record(
    shot_id: str,
    composition: str,
    camera: str,
    req: SceneRequest,
    layout: SceneLayout | None,
    people: list[str],
    props: list[str],
    animals: list[str] | None = None,
) -> dict[str, Any]:
    """What the renderer drew for one shot (ids alongside the boxes the backend reported). Cast
    animals have a box and no face: the audit's face rules read ``people`` only."""
    first, last = camera_windows(camera, req.width, req.height)
    rec: dict[str, Any] = {
        "shot": shot_id,
        "composition": composition,
        "camera": {"move": camera, "first": list(first), "last": list(last),
                   "safe": list(camera_safe(camera, req.width, req.height))},
        "size": [req.width, req.height],
    }  # fmt: skip
    if layout is None:
        return rec | {"unaudited": True}
    rec["people"] = [
        {"id": pid, "box": _l(layout.people[i]), "face": _l(layout.faces[i]),
         "face_h": (layout.faces[i][3] - layout.faces[i][1]) if layout.faces[i] else 0}
        for i, pid in enumerate(people)
    ]  # fmt: skip
    rec["props"] = [
        {"id": oid, "shape": layout.prop_shapes[k] if k < len(layout.prop_shapes) else None,
         "box": _l(layout.props[k])}
        for k, oid in enumerate(props)
    ]  # fmt: skip
    rec["sign"] = {"text": layout.sign_text, "box": _l(layout.sign)} if layout.sign else None
    if animals:
        boxes = layout.animals
        rec["animals"] = [
            {"id": a, "box": _l(boxes[k]) if k < len(boxes) else None} for k, a in enumerate(animals)
        ]
    if layout.parts:  # declared objects drawn by library parts (``generators/icm/parts_audit.py``)
        rec["parts"] = [dict(p) for p in layout.parts]
    return rec


def _overlap(a: Box | None, b: Box | None) -> bool:
    return a is not None and b is not None and a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _l(b: Box | None) -> list[int] | None:
    return list(b) if b is not None else None


def _t(b: list[int] | None) -> Box | None:
    return (b[0], b[1], b[2], b[3]) if b else None


def shot_problems(theme: Theme, world: World, obs: Observation, rec: dict[str, Any]) -> list[str]:
    """Mismatches between one shot observation and what was drawn for it."""
    sid, out = obs.id, []
    safe = _t(rec["camera"]["safe"])
    assert safe is not None
    drawn = {p["id"]: p for p in rec["people"]}
    min_face = theme.album.min_face_px if rec["composition"] in ("close", "medium") else WIDE_MIN_FACE_PX
    for pid in obs.people:
        p = drawn.get(pid)
        if p is None or p["face"] is None:
            out.append(f"{sid}: {pid} is claimed visible but not drawn")
            continue
        if not _inside(_t(p["face"]), safe):
            out.append(f"{sid}: {pid}'s face {p['face']} leaves the frame during the {rec['camera']['move']} "
                       f"(stays-in-frame region {list(safe)})")  # fmt: skip
        if p["face_h"] < min_face:
            out.append(
                f"{sid}: {pid}'s face is {p['face_h']} px high, under {min_face} px ({rec['composition']})"
            )
    for pid in sorted(set(drawn) - set(obs.people)):
        out.append(f"{sid}: {pid} is drawn but the observation does not list them")
    shapes = {o.id: o.shape for o in theme.objects}
    props = {p["id"]: p for p in rec["props"]}
    for e in obs.expresses:
        if "_brought_" in e.fact:
            oid = e.fact.rsplit("_brought_", 1)[1]
            p = props.get(oid)
            want = shapes.get(oid) or prop_shape(world.object(oid).name)
            box = _t(p["box"]) if p else None
            if p is None or box is None:
                out.append(f"{sid}: prop {oid} is claimed but not drawn")
            elif not _inside(box, safe):
                out.append(f"{sid}: prop {oid} {p['box']} leaves the frame (region {list(safe)})")
            elif min(box[2] - box[0], box[3] - box[1]) < MIN_PROP_PX:
                out.append(f"{sid}: prop {oid} is drawn under {MIN_PROP_PX} px")
            elif p["shape"] != want:
                out.append(f"{sid}: prop {oid} is drawn as a {p['shape']}, not a {want}")
        if e.fact.endswith("_place") and e.channel == Channel.pixel:
            place = world.place(obs_place(world, e.fact))
            sign = rec.get("sign")
            if not sign or sign["text"] != place.sign:
                out.append(f"{sid}: the sign {place.sign!r} is claimed readable but not drawn")
            elif not _inside(_t(sign["box"]), safe):
                out.append(f"{sid}: the sign {sign['box']} is cropped by the {rec['camera']['move']}")
            else:  # people are drawn after the sign: nobody may stand in front of it
                for p in rec["people"]:
                    if _overlap(_t(p["box"]), _t(sign["box"])):
                        out.append(f"{sid}: the sign {sign['box']} is covered by {p['id']} {p['box']}")
    return out


def obs_place(world: World, fact_id: str) -> str:
    return next(f.object for f in world.facts if f.id == fact_id)


def speech_problems(lines: list[dict[str, Any]]) -> list[str]:
    """Lines cut short (audio shorter on screen than in the file) or running past their shot."""
    out = []
    for ln in lines:
        shown = ln["end_s"] - ln["start_s"]
        if (
            shown + SPEECH_TOLERANCE_S < ln["duration_s"]
            or ln["end_s"] > ln["shot_end_s"] + SPEECH_TOLERANCE_S
        ):
            out.append(
                f"{ln['line']}: {ln['duration_s']:.2f} s of speech, cut at the end of shot {ln['shot']}"
            )
    return out


def audit(
    theme: Theme,
    world: World,
    observations: list[Observation],
    records: dict[str, dict[str, Any]],
    stills: Path | None = None,
) -> dict[str, Any]:
    """Compare every shot observation with its drawn record; the report ``dataset_statistics`` keeps.
    ``stills`` (the shots' PNG folder): declared parts are read back from the pixels there."""
    problems: list[str] = []
    counts: Counter[str] = Counter()
    faces: dict[str, list[int]] = {"wide": [], "medium": [], "close": []}
    lines: list[dict[str, Any]] = []
    for clip_rec in records.values():
        lines += clip_rec.get("lines", [])
    by_shot = {s["shot"]: s for c in records.values() for s in c["shots"]}
    parts = PartCounts()
    for o in observations:
        if o.kind != "shot":
            continue
        rec = by_shot.get(o.id)
        if rec is None:
            problems.append(f"{o.id}: no render record for this shot")
            continue
        if rec.get("unaudited"):
            counts["unaudited_shots"] += 1
            continue
        counts["shots"] += 1
        counts["people_claimed"] += len(o.people)
        counts["props_claimed"] += sum("_brought_" in e.fact for e in o.expresses)
        counts["signs_claimed"] += sum(
            e.fact.endswith("_place") and e.channel == Channel.pixel for e in o.expresses
        )
        faces[rec["composition"]] += [p["face_h"] for p in rec["people"] if p["id"] in o.people]
        problems += shot_problems(theme, world, o, rec)
        problems += part_problems(world, o, rec, stills, parts)
    problems += speech_problems(lines)
    return parts.report() | {
        "design": "fail",
        "shots_audited": counts["shots"],
        "shots_unaudited": counts["unaudited_shots"],
        "people_claimed": counts["people_claimed"],
        "props_claimed": counts["props_claimed"],
        "signs_claimed": counts["signs_claimed"],
        "lines_checked": len(lines),
        "lines_cut": sum(1 for p in problems if "s of speech, cut" in p),
        "min_face_px": {k: (min(v) if v else None) for k, v in faces.items()},
        "mismatches": len(problems),
        "problems": problems,
    }


def audit_path(media: Path) -> Path:
    return media / "render_audit.json"
