"""The smm family's part of ``mnemoforge report``: the sources the memory is spread over."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PIL import Image

from mnemoforge.backends.image.documents import render_bar_chart
from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.report_html import _fig, _table
from mnemoforge.exporters.report_part import ReportPart

if TYPE_CHECKING:
    from mnemoforge.exporters.report import Source

Rec = dict[str, Any]
FAMILY = "smm"


def source_rows(src: Source) -> list[Rec]:
    """Every smm source: id, title, kind, authority, members, rounds, evidence units, questions."""
    by_source = src.stats.get(FAMILY, {}).get("sources", {}).get("by_source", {})
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

class SourcesReport(ReportPart):
    """A row per person, a mark per conversation day they post on; a section of sources."""

    unit = ("conversation day", "conversation days")

    def figures(self, src: Source, people: list[rf.PersonRow]) -> dict[str, Image.Image]:
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

    def section(self, src: Source, figs: dict[str, Rec]) -> tuple[str, str]:
        row = '<div class="row">{}</div>'.format
        graph = _fig(figs, "sources", f"Relations and shared {self.unit[1]}")
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

    def header_stats(self, src: Source) -> list[tuple[Any, str]]:
        images = sum(len(o.get("media") or []) for o in src.observations.values())
        kept = (f"{len(src.questions)} / {src.candidates}", "questions kept")
        return [(len(source_rows(src)), "sources"), (len(src.episodes), self.unit[1]),
                (len(src.observations), "rounds"), (images, "media files"), (len(src.people), "people"),
                kept]  # fmt: skip

    def card_extra(self, src: Source, q: Rec) -> list[tuple[str, str]]:
        kinds = {r["id"]: r["kind"] for r in source_rows(src)}
        names = [f"{s} ({kinds.get(s, '?')})" for s in q.get("evidence_sources") or []]
        return [("evidence sources", ", ".join(names) or "-")]
