"""Family-specific parts of the report: episodes, sources (smm), scenarios (memeye), evidence.

The icm family shows clips of shots; smm and memeye releases have no clips, so their episodes are
derived from ``observations``: one per ``episode``, or one per (episode, day) where an episode
spans several days (an smm source runs across the whole timeline). Each derived episode is shaped
like a clip record (``index``, ``start``, one pseudo-shot whose ``visible`` people are the
observations' ``people``), so the shared timeline, graph and heatmap code reads it unchanged.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents import render_bar_chart
from mnemoforge.backends.image.documents_base import INK, MUTED, WHITE, draw_text, fit_text
from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.report_drawing import PAPER, _title
from mnemoforge.exporters.report_html import _fig, _table
from mnemoforge.store.atomic import write_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from mnemoforge.exporters.report import Source

Rec = dict[str, Any]
UNITS = {
    "icm": ("clip", "clips"),
    "smm": ("conversation day", "conversation days"),
    "memeye": ("session", "sessions"),
}
QUOTE_CHARS = 280
XS, YS = ("X1", "X2", "X3", "X4"), ("Y1", "Y2", "Y3")


def unit(family: str) -> tuple[str, str]:
    """The family's episode word, singular and plural ("clip", "clips")."""
    return UNITS.get(family, ("episode", "episodes"))


def episodes(observations: Iterable[Rec]) -> list[Rec]:
    """Clip-shaped episodes from observations, in time order, ``index`` from 0."""
    groups: dict[str, list[Rec]] = {}
    timed = [o for o in observations if o.get("timestamp")]
    for o in sorted(timed, key=lambda o: (str(o["timestamp"]), o.get("order", 0), o["id"])):
        groups.setdefault(str(o.get("episode") or o.get("source") or ""), []).append(o)
    out = []
    for ep, obs in groups.items():
        days = sorted({str(o["timestamp"])[:10] for o in obs})
        parts = [(ep, obs)] if len(days) == 1 else [
            (f"{ep}@{d}", [o for o in obs if str(o["timestamp"])[:10] == d]) for d in days
        ]  # fmt: skip
        for eid, part in parts:
            people = sorted({p for o in part for p in o.get("people", [])})
            shot = {"id": eid, "visible": people, "place": "", "dialogue": [{"speaker": p} for p in people]}
            first = part[0]
            out.append(
                {"id": eid, "episode": ep, "source": first.get("source") or ep,
                 "start": str(first["timestamp"]), "observations": [o["id"] for o in part], "shots": [shot]}
            )  # fmt: skip
    out.sort(key=lambda c: (c["start"], c["id"]))
    return [c | {"index": i} for i, c in enumerate(out)]


# ----------------------------------------------------------------------------- smm: sources


def source_rows(src: Source) -> list[Rec]:
    """Every smm source: id, title, kind, authority, members, rounds, evidence units, questions."""
    by_source = src.stats.get("smm", {}).get("sources", {}).get("by_source", {})
    rows = {s["id"]: dict(s) for s in src.sources}
    for sid, s in by_source.items():
        rows.setdefault(sid, {"id": sid, **s})
    rounds = Counter(o.get("source") for o in src.observations.values())
    for sid in rounds:
        if sid:
            rows.setdefault(sid, {"id": sid})
    cited = Counter(s for q in src.questions for s in set(q.get("evidence_sources") or []))
    out = []
    for sid in sorted(rows):
        r = rows[sid]
        out.append(
            {"id": sid, "title": r.get("title") or sid, "kind": r.get("kind", "-"),
             "authority": r.get("authority", "-"), "members": len(r.get("members") or []),
             "rounds": rounds.get(sid, int(r.get("rounds") or 0)),
             "evidence_units": int(r.get("evidence_units") or 0), "questions": cited.get(sid, 0)}
        )  # fmt: skip
    return out


def sources_per_question(questions: Iterable[Rec]) -> Counter[int]:
    """How many questions draw their evidence from 1, 2, 3 … distinct sources."""
    return Counter(len(set(q.get("evidence_sources") or [])) for q in questions)


# ----------------------------------------------------------------------------- memeye: scenarios


def scenario_rows(src: Source) -> list[Rec]:
    """Every memeye scenario: title, kind, sessions, rounds, images and kept questions."""
    stats = src.stats.get("memeye", {}).get("scenarios", {})
    obs = [o for o in src.observations.values() if o.get("source")]
    asked = Counter((q.get("labels") or {}).get("scenario") for q in src.questions)
    out = []
    for sid in sorted({o["source"] for o in obs} | set(stats)):
        mine = [o for o in obs if o["source"] == sid]
        s = stats.get(sid, {})
        out.append(
            {"id": sid, "title": s.get("title") or sid.replace("_", " ").title(), "kind": s.get("kind", "-"),
             "sessions": len({o.get("episode") for o in mine}), "rounds": len(mine),
             "images": sum(len(o.get("media") or []) for o in mine), "questions": asked.get(sid, 0)}
        )  # fmt: skip
    return out


def cell_counts(questions: Iterable[Rec]) -> Counter[tuple[str, str]]:
    """Kept questions per (X, Y) cell."""
    return Counter(xy for xy in map(rf.xy_label, questions) if xy)


def cells_table(questions: list[Rec]) -> str:
    """The X x Y grid of kept questions as an HTML table; every one of the 12 cells is shown."""
    n = cell_counts(questions)
    head = "".join(f"<th>{y} {rf.Y_NAMES[y]}</th>" for y in YS)
    rows = "".join(
        f"<tr><th>{x} {rf.X_NAMES[x]}</th>"
        + "".join(f'<td class="n" data-cell="{x}_{y}">{n[(x, y)]}</td>' for y in YS)
        + "</tr>"
        for x in XS
    )
    return f'<table class="cells"><tr><th>X \\ Y</th>{head}</tr>{rows}</table>'


def _scenario_faces(src: Source) -> dict[str, Image.Image | None]:
    """The first image of each scenario, as its lane's avatar."""
    faces: dict[str, Image.Image | None] = {}
    for o in sorted(src.observations.values(), key=lambda o: (str(o.get("timestamp")), o["id"])):
        sid, media = o.get("source"), [m for m in o.get("media") or [] if m.endswith(".png")]
        if sid and sid not in faces and media and (src.root / media[0]).is_file():
            with Image.open(src.root / media[0]) as img:
                faces[sid] = img.convert("RGB")
    return faces


def gallery(src: Source, thumb: int = 132) -> Image.Image:
    """The images the user shared: one row per scenario, thumbnails in time order, each labelled
    with its round and date."""
    rows = scenario_rows(src)
    shared: dict[str, list[tuple[Rec, str]]] = {r["id"]: [] for r in rows}
    for o in sorted(src.observations.values(), key=lambda o: (str(o.get("timestamp")), o["id"])):
        for m in o.get("media") or []:
            if o.get("source") in shared and m.endswith(".png") and (src.root / m).is_file():
                shared[o["source"]].append((o, m))
    left, th = 190, round(thumb * 3 / 4)
    row_h = th + 44
    most = max([len(v) for v in shared.values()] + [1])
    width = max(640, left + most * (thumb + 10) + 24)
    title = "Images shared with the assistant"
    n = sum(map(len, shared.values()))
    why = f"{n} images in {len(rows)} scenarios; one row per scenario, in time order."
    top = _title(Image.new("RGB", (width, 10)), title, why) + 6
    img = Image.new("RGB", (width, top + row_h * max(1, len(rows)) + 10), PAPER)
    _title(img, title, why)
    draw = ImageDraw.Draw(img)
    for i, r in enumerate(rows):
        y = top + i * row_h
        draw.rectangle((16, y, width - 16, y + row_h - 6), fill=WHITE)
        name = fit_text(r["title"], 14, left - 40, bold=True)
        draw_text(draw, (28, y + row_h / 2 - 10), name, 14, INK, True, "lm")
        note = f"{r['images']} images, {r['sessions']} sessions"
        draw_text(draw, (28, y + row_h / 2 + 10), fit_text(note, 11, left - 40), 11, MUTED, anchor="lm")
        for k, (o, m) in enumerate(shared[r["id"]]):
            x = left + k * (thumb + 10)
            with Image.open(src.root / m) as pic:
                small = pic.convert("RGB")
            small.thumbnail((thumb, th))
            img.paste(small, (x + (thumb - small.width) // 2, y + 6))
            label = f"{o['id']} \u00b7 {str(o.get('timestamp', ''))[5:10]}"
            draw_text(draw, (x + thumb / 2, y + th + 12), fit_text(label, 11, thumb), 11, MUTED, anchor="ma")
    return img


# ----------------------------------------------------------------------------- figures and sections


def timeline(src: Source, people: list[rf.PersonRow], start: dt.date, end: dt.date) -> Image.Image:
    """smm: a row per person, a mark per conversation day they post on; memeye: a row per
    scenario, a mark per session about it."""
    eps, units = src.episodes, unit(src.family)
    if src.family != "memeye":
        return rf.timeline_figure(people, rf.clip_marks(eps), start, end, unit=units, speech=False)
    faces = _scenario_faces(src)
    lanes = [rf.PersonRow(s["id"], s["title"], s["kind"], faces.get(s["id"])) for s in scenario_rows(src)]
    marks = [
        rf.ClipMark(dt.datetime.fromisoformat(c["start"]), frozenset({c["source"]}), frozenset({c["source"]}))
        for c in eps
    ]
    return rf.timeline_figure(lanes, marks, start, end, unit=units, lane="scenario", speech=False)


def figures(src: Source, people: list[rf.PersonRow]) -> dict[str, Image.Image]:
    """The family's figures for the Sources section (smm: sources; memeye: scenarios)."""
    if src.family == "smm":
        rows = source_rows(src)
        why = "Conversation days on which each person posts in each source."
        by_source = rf.presence_heatmap(
            "Sources x people", [(r["id"], r["title"]) for r in rows], people, src.episodes,
            lambda c: {c["source"]}, why,
        )  # fmt: skip
        hist = sources_per_question(src.questions)
        ks = list(range(min(hist, default=0), max(hist, default=0) + 1))
        labels, values = [f"{k} source{'' if k == 1 else 's'}" for k in ks], [hist[k] for k in ks]
        return {
            "sources_people": by_source,
            "sources_per_question": render_bar_chart(
                "Questions by number of evidence sources", labels, values
            ),
        }
    if src.family == "memeye":
        rows = scenario_rows(src)
        n = Counter(((q.get("labels") or {}).get("scenario"), rf.xy_label(q)) for q in src.questions)
        cells = [(x, y) for x in XS for y in YS]
        grid = [[n[(r["id"], xy)] for xy in cells] for r in rows]
        cols = [f"{x} {y}" for x, y in cells]
        title, why = (
            "Questions per scenario x X/Y cell",
            "Kept questions of each scenario in each X x Y cell.",
        )
        cells_img = rf.heatmap(title, [r["title"] for r in rows], cols, grid, subtitle=why, cell_w=52)
        out = {"scenario_images": gallery(src), "scenario_cells": cells_img}
        from mnemoforge.exporters.report_memeye_objects import object_sheet

        if (sheet := object_sheet(src, {r["id"]: r["title"] for r in rows})) is not None:
            out["object_sheet"] = sheet
        return out
    return {}


def section(src: Source, figs: dict[str, Rec]) -> tuple[str, str]:
    """The Sources section's lead and body for smm and memeye."""
    row = '<div class="row">{}</div>'.format
    graph = _fig(figs, "sources", f"Relations and shared {unit(src.family)[1]}")
    if src.family == "smm":
        rows = source_rows(src)
        table = _table(
            ["source", "title", "kind", "authority", "members", "rounds", "evidence units", "questions"],
            [[r["id"], r["title"], r["kind"], r["authority"], r["members"], r["rounds"], r["evidence_units"],
              r["questions"]] for r in rows],
        )  # fmt: skip
        body = row(table) + row(
            graph + _fig(figs, "sources_people", "Sources x people")
            + _fig(figs, "sources_per_question", "Distinct evidence sources per kept question")
        )  # fmt: skip
        return f"The {len(rows)} sources the memory is spread over, and who talks where.", body
    rows = scenario_rows(src)
    table = _table(
        ["scenario", "title", "kind", "sessions", "rounds", "images", "questions"],
        [
            [r["id"], r["title"], r["kind"], r["sessions"], r["rounds"], r["images"], r["questions"]]
            for r in rows
        ],
    )
    body = row(table + _fig(figs, "scenario_cells", "Questions per scenario and X/Y cell"))
    body += row(_fig(figs, "scenario_images", "Every image the user shared, by scenario") + graph)
    if "object_sheet" in figs:
        body += row(_fig(figs, "object_sheet", "Every drawn object across time"))
    return f"The {len(rows)} scenarios the user shares images about, session by session.", body


def header_stats(src: Source) -> list[tuple[Any, str]]:
    """The summary counts at the top of the page."""
    eps, (_, many) = src.episodes, unit(src.family)
    images = sum(len(o.get("media") or []) for o in src.observations.values())
    kept = (f"{len(src.questions)} / {src.candidates}", "questions kept")
    if src.family == "smm":
        return [(len(source_rows(src)), "sources"), (len(eps), many), (len(src.observations), "rounds"),
                (images, "media files"), (len(src.people), "people"), kept]  # fmt: skip
    sessions = len({c["episode"] for c in eps})
    return [(len(scenario_rows(src)), "scenarios"), (sessions, many), (len(src.observations), "rounds"),
            (images, "images"), (len(src.people), "people"), kept]  # fmt: skip


# ----------------------------------------------------------------------------- examples


def evidence(src: Source, oid: str, out_dir: Path) -> Rec:
    """One evidence observation: its first image copied under ``out_dir``, its text quoted."""
    o = src.observations.get(oid, {})
    still, size = None, None
    for m in o.get("media") or []:
        path = src.root / m
        if m.endswith(".png") and path.is_file() and not m.startswith(("/", "..")):
            still = m
            write_bytes(out_dir / m, path.read_bytes())
            with Image.open(path) as img:
                scale = min(1.0, 320 / img.width)
                size = (round(img.width * scale), round(img.height * scale))
            break
    text = str(o.get("content", ""))
    quote = text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "\u2026"
    where = " / ".join(t for t in (str(o.get("source") or ""), str(o.get("kind") or "")) if t)
    when = str(o.get("timestamp", ""))[:10]
    return {"id": oid, "still": still, "size": size, "speech": False, "quote": quote, "text": text,
            "speaker": "", "where": where, "when": when}  # fmt: skip


def card_extra(src: Source, q: Rec) -> tuple[list[tuple[str, str]], str | None]:
    """Meta lines for a card (sources or scenario and clue rounds) and the structured answer."""
    extra: list[tuple[str, str]] = []
    if src.family == "smm":
        kinds = {r["id"]: r["kind"] for r in source_rows(src)}
        names = [f"{s} ({kinds.get(s, '?')})" for s in q.get("evidence_sources") or []]
        extra.append(("evidence sources", ", ".join(names) or "-"))
    elif src.family == "memeye":
        labels, scen = q.get("labels") or {}, {r["id"]: r["title"] for r in scenario_rows(src)}
        xy = rf.xy_label(q)
        scenario = scen.get(labels.get("scenario", ""), labels.get("scenario", "-"))
        extra.append(("scenario", f"{scenario} \u00b7 {xy[0]} x {xy[1]}" if xy else scenario))
        extra.append(("clue rounds", ", ".join(q.get("evidence") or []) or "-"))
    structured = q.get("structured_answer")
    return extra, tool_calls(structured) if structured else None


def tool_calls(structured: Any) -> str:
    """A structured function-calling answer as one line per call: ``step. name(arg=value, ...)``."""
    try:
        return "\n".join(
            f"{step['step']}. {call['name']}("
            + ", ".join(
                f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(call["arguments"].items())
            )
            + ")"
            for step in structured
            for call in step["calls"]
        )
    except (KeyError, TypeError, AttributeError):
        return json.dumps(structured, indent=1, ensure_ascii=False, sort_keys=True)
