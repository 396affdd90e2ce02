"""Cost drivers of a planned album beside the published benchmark's figures (``build --preflight``)
and beside what a build's call ledger paid for (``mnemoforge ledger RUN --preflight``).

A driver is a quantity the bill grows with: video minutes, shots (one generated clip each),
images (shot stills and face anchors), speech seconds and lines. The reference is
``assets/references/<family>.yaml`` (ICM-Bench for icm): its figures are scaled to the theme's clip
count, so a ratio of 1.8 on minutes says the album runs 1.8 times ICM-Bench's pace, whatever its
size. When minutes run long, ``hints`` say what the album's knobs would plan instead, computed from
the same plan (each shot's speech need is known, so the shortest duration that holds it is too).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mnemoforge import yaml_io

REFERENCES = Path(__file__).resolve().parents[2] / "assets" / "references"
LONG = 1.1  # minutes more than this times the reference's pace get a hint


@dataclass
class Driver:
    """One cost driver: planned value, the reference scaled to the same clip count, their ratio and
    what the driver costs in the estimate (``None``: not a line of the bill by itself)."""

    name: str
    planned: float
    reference: float | None
    ratio: float | None
    cost: float | None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def reference(family: str) -> dict[str, Any] | None:
    """The published figures a family is compared with (``None`` when none are shipped)."""
    path = REFERENCES / f"{family}.yaml"
    if not path.is_file():
        return None
    data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def _ratio(planned: float, ref: float | None) -> float | None:
    return round(planned / ref, 3) if ref else None


def album_drivers(
    family: str,
    clips: int,
    minutes: float,
    shots: int,
    images: int,
    people: int,
    speech_s: float,
    lines: int,
    costs: dict[str, float],
) -> list[Driver]:
    """The drivers of a planned album, each beside the family's reference scaled to ``clips``."""
    ref = reference(family) or {}
    scale = clips / ref["clips"] if ref.get("clips") else None
    name = ref.get("name", "reference")
    per_clip = ref.get("shots_per_clip")
    ref_minutes = round(ref["minutes"] * scale, 1) if scale and ref.get("minutes") else None
    ref_shots = round(per_clip * clips) if per_clip else None
    ref_images = ref_shots + people if ref_shots is not None else None
    pace = f"{ref['minutes'] * 60 / ref['clips']:.1f} s a clip" if ref_minutes else ""
    shot_note = f"{per_clip:g} a clip, {ref.get('shots_per_clip_note', name)}" if per_clip else ""
    return [
        Driver(
            "clips",
            clips,
            ref.get("clips"),
            None,  # the scale every other reference is brought to, not a driver of its own
            None,
            f"{name}'s figures below are scaled to {clips} clips" if ref.get("clips") else "",
        ),
        Driver(
            "video minutes",
            round(minutes, 1),
            ref_minutes,
            _ratio(minutes, ref_minutes),
            costs.get("video"),
            f"{name}: {pace}" if pace else "",
        ),  # fmt: skip
        Driver("shots", shots, ref_shots, _ratio(shots, ref_shots), None, shot_note),
        Driver(
            "images",
            images,
            ref_images,
            _ratio(images, ref_images),
            costs.get("image"),
            f"{shots} stills + {people} face anchors",
        ),  # fmt: skip
        Driver(
            "speech seconds",
            round(speech_s, 1),
            None,
            None,
            costs.get("speech"),
            f"{lines} lines; {name} publishes no speech total",
        ),  # fmt: skip
    ]


def length_hints(
    minutes: float, ref_minutes: float | None, alternatives: dict[str, float], cost_per_minute: float
) -> list[str]:
    """One line per knob when the album runs long: what it would plan, and the video cost it saves."""
    if not ref_minutes or minutes <= LONG * ref_minutes:
        return []
    out = [f"video minutes are {minutes / ref_minutes:.2f}x the reference's pace ({ref_minutes:g} min for "
           "this many clips)"]  # fmt: skip
    seen: set[float] = set()
    for knob, alt in alternatives.items():
        if round(alt, 1) in seen:  # another knob planning the same minutes says nothing new
            continue
        seen.add(round(alt, 1))
        saved = (minutes - alt) * cost_per_minute
        money = f", video cost {saved:.2f} lower" if saved > 0 else ""
        out.append(f"`{knob}` plans {alt:.1f} min ({alt / ref_minutes:.2f}x){money}")
    out.append("`build --preflight --fit-length` finds the album knobs (shot length, shots a clip, talk "
               "density) that reach the reference's pace")  # fmt: skip
    return out


def ledger_drivers(rows: list[dict[str, Any]]) -> dict[str, float]:
    """What a build paid for, per driver, from its ledger's ``ok`` rows (cache hits and failed
    attempts excluded): generated clips and their seconds, images, speech seconds and lines."""
    ok = [r for r in rows if r.get("status") == "ok"]

    def total(op: str, field: str) -> float:
        return round(sum(float(r.get(field) or 0) for r in ok if r.get("operation") == op), 3)

    video_ops = ("video", "video_audio")
    return {
        "shots": sum(1 for r in ok if r.get("operation") in video_ops),
        "video minutes": round(sum(total(op, "media_seconds") for op in video_ops) / 60, 3),
        "images": int(total("image", "images")),
        "speech seconds": total("speech", "media_seconds"),
        "speech lines": sum(1 for r in ok if r.get("operation") == "speech"),
        "cost": round(sum(float(r.get("cost") or 0) for r in rows), 9),
    }


def add_drivers(pf: Any, album: dict[str, Any]) -> None:
    """Set ``pf.drivers`` (the album's cost drivers beside the family's reference) and ``pf.hints``
    from a preflight's priced render rows and ``album`` (its counts and the length alternatives)."""
    render = {r.operation: r for r in pf.rows if r.stage == "render"}
    video = render.get("video") or render.get("video_audio")
    costs = {k: r.cost for k, r in (("video", video), ("image", render.get("image")),
                                    ("speech", render.get("speech"))) if r is not None}  # fmt: skip
    pf.drivers = album_drivers(
        pf.family, album["clips"], album["minutes"], album["shots"], album["images"], album["people"],
        album["speech_s"], album["lines"], costs,
    )  # fmt: skip
    per_minute = video.cost / (video.video_seconds / 60) if video is not None and video.video_seconds else 0.0
    ref = next(d.reference for d in pf.drivers if d.name == "video minutes")
    pf.hints = length_hints(album["minutes"], ref, album["alternatives"], per_minute)
