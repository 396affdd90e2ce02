"""The memeye family's part of ``mnemoforge report``: scenarios, the images shared, X/Y cells."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents_base import INK, MUTED, WHITE, draw_text, fit_text
from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.report_drawing import PAPER, _title
from mnemoforge.exporters.report_html import _fig, _table
from mnemoforge.exporters.report_part import ReportPart

if TYPE_CHECKING:
    from mnemoforge.exporters.report import Source

Rec = dict[str, Any]
FAMILY = "memeye"
XS, YS = ("X1", "X2", "X3", "X4"), ("Y1", "Y2", "Y3")


def scenario_rows(src: Source) -> list[Rec]:
    """Every memeye scenario: title, kind, sessions, rounds, images and kept questions."""
    stats = src.stats.get(FAMILY, {}).get("scenarios", {})
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

class ScenariosReport(ReportPart):
    """A row per scenario, a mark per session about it; scenarios, images and X/Y cells."""

    unit = ("session", "sessions")
    lane = "scenario"

    def timeline(self, src: Source, people: list[rf.PersonRow], start: dt.date, end: dt.date) -> Image.Image:
        faces = _scenario_faces(src)
        lanes = [rf.PersonRow(s["id"], s["title"], s["kind"], faces.get(s["id"])) for s in scenario_rows(src)]
        marks = [
            rf.ClipMark(dt.datetime.fromisoformat(c["start"]), *[frozenset({c["source"]})] * 2)
            for c in src.episodes
        ]
        return rf.timeline_figure(lanes, marks, start, end, unit=self.unit, lane="scenario", speech=False)

    def figures(self, src: Source, people: list[rf.PersonRow]) -> dict[str, Image.Image]:
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

    def section(self, src: Source, figs: dict[str, Rec]) -> tuple[str, str]:
        row = '<div class="row">{}</div>'.format
        graph = _fig(figs, "sources", f"Relations and shared {self.unit[1]}")
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

    def header_stats(self, src: Source) -> list[tuple[Any, str]]:
        images = sum(len(o.get("media") or []) for o in src.observations.values())
        kept = (f"{len(src.questions)} / {src.candidates}", "questions kept")
        sessions = len({c["episode"] for c in src.episodes})
        return [(len(scenario_rows(src)), "scenarios"), (sessions, self.unit[1]),
                (len(src.observations), "rounds"), (images, "images"), (len(src.people), "people"),
                kept]  # fmt: skip

    def card_extra(self, src: Source, q: Rec) -> list[tuple[str, str]]:
        labels, scen = q.get("labels") or {}, {r["id"]: r["title"] for r in scenario_rows(src)}
        xy = rf.xy_label(q)
        scenario = scen.get(labels.get("scenario", ""), labels.get("scenario", "-"))
        return [("scenario", f"{scenario} \u00b7 {xy[0]} x {xy[1]}" if xy else scenario),
                ("clue rounds", ", ".join(q.get("evidence") or []) or "-")]  # fmt: skip

    def taxonomy(self, src: Source) -> str:
        return cells_table(src.questions)
