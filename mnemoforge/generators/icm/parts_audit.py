"""The render audit of declared parts (issue 30): every shot observation that claims a drawn
object's value (a ``f_<event>_shows_<object>`` fact) must have it drawn, in the still, with the
World's value, at a legible size and readable back from the pixels.

Checks, each naming the shot and the object: the part is drawn, inside the part of the still that
stays in frame for the whole camera move, clear of every face and of the place sign; the value it
was drawn with is the value ``World.value_at`` holds at the shot's time (and the fact's); a
written value (a sign, board, screen, tag, chart) is at least ``MIN_TEXT_PX`` high and reads back
as that value with RapidOCR (``backends/image/read_back.py``, the read-back memeye's
``memeye_legible`` gate uses); a chart's last bar stands at that level; as many items stand on a
shelf as the count; a map's pin, found by its ink in the pixels, marks that place, and every place
name on the map reads back as itself. Without the ``ocr`` extra the OCR read-back is left out
(``parts_ocr: unavailable`` in the report) and the other checks run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.read_back import MIN_SCORE, names, ocr_available, read_cached
from mnemoforge.backends.image.visual_library import chart_level
from mnemoforge.backends.image.visual_map import pinned_at
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.world import World

MIN_TEXT_PX = 12  # a written value's box: as memeye's drawn check
MIN_PART_PX = 12  # a drawn part's smaller side (a colour part: the van, the dog)
SHOWS = "_shows_"


@dataclass
class PartCounts:
    """What the audit checked of declared parts (in the report only when a shot claims one)."""

    counts: Counter[str] = field(default_factory=Counter)
    read: list[dict[str, str]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        if not self.counts["claimed"]:
            return {}
        return {
            "parts_claimed": self.counts["claimed"],
            "parts_ocr": "rapidocr" if ocr_available() else "unavailable",
            "parts_read_back": self.read,
        }


def _inside(b: list[int], safe: list[int]) -> bool:
    return b[0] >= safe[0] and b[1] >= safe[1] and b[2] <= safe[2] and b[3] <= safe[3]


def _overlap(a: list[int] | None, b: list[int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _read(still: Path, box: list[int], want: str, choices: tuple[str, ...] = ()) -> tuple[str, str | None]:
    """(what was read, a problem or None) for one written box."""
    got, score = read_cached(still, box, False)
    if not got or score < MIN_SCORE:
        return got, f"is illegible (read {got!r}, confidence {score:.2f})"
    if not names(got, want, choices):
        return got, f"reads {got!r}, not {want!r}"
    return got, None


def _part_checks(
    part: dict[str, Any], want: str, still: Path | None, ocr: bool, safe: list[int] | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """(problems, (text expected, text OCR read) per written box) of one drawn part against the
    World's value ``want``."""
    out, read = [], []
    kind = part["part"]
    if kind == "label":
        text = part.get("text")
        if not text or text[3] - text[1] < MIN_TEXT_PX:
            out.append(f"its written value is under {MIN_TEXT_PX} px high ({text})")
        elif still is not None and ocr:
            got, problem = _read(still, text, want)
            read.append((want, got))
            out += [f"its written value {problem}"] if problem else []
        chart = part.get("chart")
        if chart and str(chart_level(tuple(chart["bar"]), tuple(chart["axis"]), *chart["range"])) != want:
            out.append(f"its chart's last bar does not stand at {want}")
    elif kind == "count":
        boxes = part.get("countables", [])
        if len(boxes) != int(want):
            out.append(f"{len(boxes)} items are drawn, the World counts {want}")
        elif any(min(b[2] - b[0], b[3] - b[1]) < 4 for b in boxes):
            out.append("its counted items are under 4 px")
    elif kind == "map":
        layout = part.get("map") or {}
        if still is not None:
            from PIL import Image

            with Image.open(still) as img:
                pinned = pinned_at(img, layout)
            if pinned != want:
                out.append(f"its pin marks {pinned or 'nothing'!r} in the pixels, the World {want!r}")
        places = tuple(layout.get("places", {}))
        for name, box in layout.get("labels", {}).items():
            if safe is not None and not _inside(box, safe):
                out.append(f"the place name {name!r} {box} leaves the frame (region {safe})")
            elif not _inside(box, layout.get("box", box)):  # names too long for the map's width
                out.append(f"the place name {name!r} {box} runs off the map {layout.get('box')}")
            elif box[3] - box[1] < MIN_TEXT_PX:
                out.append(f"the place name {name!r} is under {MIN_TEXT_PX} px high")
            elif still is not None and ocr:
                got, problem = _read(still, box, name, places)
                read.append((name, got))
                out += [f"the place name {name!r} {problem}"] if problem else []
    return out, read


def part_problems(
    world: World, obs: Observation, rec: dict[str, Any], stills: Path | None, counts: PartCounts
) -> list[str]:
    """Mismatches between the drawn parts an observation claims and what its still shows."""
    claimed = [e.fact for e in obs.expresses if SHOWS in e.fact]
    if not claimed:
        return []
    sid, out = obs.id, []
    safe = rec["camera"]["safe"]
    drawn = {p["oid"]: p for p in rec.get("parts", [])}
    still = stills / f"{sid}.png" if stills is not None and (stills / f"{sid}.png").is_file() else None
    ocr = ocr_available()
    sign = (rec.get("sign") or {}).get("box")
    for fid in claimed:
        counts.counts["claimed"] += 1
        oid = fid.rsplit(SHOWS, 1)[1]
        fact = world.fact(fid)
        want = world.value_at(oid, str(fact.object), obs.timestamp) or ""
        p = drawn.get(oid)
        if p is None:
            out.append(f"{sid}: part {oid} is claimed but not drawn")
            continue
        if want != fact.value or p["value"] != want:
            out.append(
                f"{sid}: part {oid} shows {p['value']!r}; the World holds {want!r} (fact {fact.value!r})"
            )
        if not _inside(p["box"], safe):
            out.append(f"{sid}: part {oid} {p['box']} leaves the frame (region {safe})")
        if min(p["box"][2] - p["box"][0], p["box"][3] - p["box"][1]) < MIN_PART_PX:
            out.append(f"{sid}: part {oid} is drawn under {MIN_PART_PX} px")
        for q in rec.get("people", []):
            if _overlap(q.get("face"), p["box"]):
                out.append(f"{sid}: part {oid} {p['box']} covers {q['id']}'s face {q['face']}")
        if _overlap(sign, p["box"]):
            out.append(f"{sid}: part {oid} {p['box']} overlaps the sign {sign}")
        problems, read = _part_checks(p, want, still, ocr, safe)
        out += [f"{sid}: part {oid}: {x}" for x in problems]
        counts.read += [{"shot": sid, "object": oid, "text": t, "read": r} for t, r in read]
    return out
