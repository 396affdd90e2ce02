"""What a family adds to ``mnemoforge report``: one ``ReportPart`` per family.

A family without clips (``Family.report_part``; None: this generic part) shows its episodes as
clip-shaped records derived from observations (``report_families.episodes``): a timeline row per
person, the relation graph, and the shared sections. A family overrides the parts that fit it
better (smm: sources; memeye: scenarios and the X/Y cells), in its own package.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from PIL import Image

from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.report_html import _fig

if TYPE_CHECKING:
    from mnemoforge.exporters.report import Source

Rec = dict[str, Any]


class ReportPart:
    """The report's family-specific figures, sections, header counts and card lines."""

    # the family's episode word, singular and plural ("clip", "clips")
    unit: tuple[str, str] = ("episode", "episodes")
    # what the timeline's rows are ("person", "scenario")
    lane: str = "person"
    # what an example item's evidence is, for the examples section's lead
    evidence_lead: str = "(evidence rounds quoted with their source; shared images shown)"

    def timeline(self, src: Source, people: list[rf.PersonRow], start: dt.date, end: dt.date) -> Image.Image:
        """A row per person, a mark per episode they take part in."""
        marks = rf.clip_marks(src.episodes)
        return rf.timeline_figure(people, marks, start, end, unit=self.unit, speech=False)

    def figures(self, src: Source, people: list[rf.PersonRow]) -> dict[str, Image.Image]:
        """The family's own figures (name -> image) for its sections."""
        return {}

    def section(self, src: Source, figs: dict[str, Rec]) -> tuple[str, str]:
        """The Sources section's lead and body."""
        graph = _fig(figs, "sources", f"Relations and shared {self.unit[1]}")
        return f"Who takes part in the {len(src.episodes)} {self.unit[1]}.", f'<div class="row">{graph}</div>'

    def header_stats(self, src: Source) -> list[tuple[Any, str]]:
        """The summary counts at the top of the page."""
        media = sum(len(o.get("media") or []) for o in src.observations.values())
        return [(len(src.episodes), self.unit[1]), (len(src.observations), "observations"),
                (media, "media files"), (len(src.people), "people"),
                (f"{len(src.questions)} / {src.candidates}", "questions kept")]  # fmt: skip

    def card_extra(self, src: Source, q: Rec) -> list[tuple[str, str]]:
        """Meta lines of an example card besides the shared ones."""
        return []

    def taxonomy(self, src: Source) -> str:
        """HTML after the category chart (memeye: the X x Y cells table)."""
        return ""
