"""Retrieval items of the icm family: promise and plan lines that name no one else, and the count
programs over clips (``count_brought``, ``count_events`` at a place, ``count_together``) on two
shipped themes with no shared vocabulary."""

from __future__ import annotations

import pytest

from mnemoforge.generators.icm import change_programs  # noqa: F401  (registers the change programs)
from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.candidates import _candidates, _valid
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.questions.common import EvidenceIndex, solve_candidates
from mnemoforge.schemas.icm_rules import LineBank
from mnemoforge.theme_io import THEMES_DIR, load_theme

THEMES = ["life_album.yaml", "backstage_sao_paulo.yaml"]
COUNTS = ("retrieval.brought.count.v1", "retrieval.count.place.v1", "retrieval.together.v1")


@pytest.fixture(scope="module", params=THEMES)
def album(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A shipped theme's World and album at 90 clips (enough repeats for the window counts)."""
    theme = load_theme(THEMES_DIR / request.param)
    theme = theme.model_copy(update={"album": theme.album.model_copy(update={"clips": 90})})
    world = plan_world(theme, theme.seed, 89)
    clips, obs = plan_album(theme, world)
    return world, clips, obs


def test_promise_and_plan_lines_name_no_one(album) -> None:  # type: ignore[no-untyped-def]
    world, clips, _ = album
    kinds = {f.id: f.kind for f in world.facts}
    names = [p.name for p in world.people]
    said = [
        line
        for c in clips
        for s in c.shots
        for line in s.dialogue
        if any(kinds.get(f) in ("promised", "planned") for f in line.facts)
    ]
    assert said, "no promise or plan was said"
    for line in said:  # an addressee is most often among those who come along next time
        assert not line.names_said and not any(n in line.text for n in names), line.text


def test_an_addressee_in_a_promise_or_plan_line_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"promise\.0.*other"):
        LineBank(promise=["{other}, I'll bring my {object} to the next {noun}."])
    with pytest.raises(ValueError, match=r"plan\.1.*other"):
        LineBank(plan=["Next: the {noun} at {place}.", "{other}, see you at {place} for the {noun}."])


def test_count_items_count_one_clip_per_event(album) -> None:  # type: ignore[no-untyped-def]
    world, _, obs = album
    pool = [c for c in solve_candidates(world, EvidenceIndex(obs), _candidates(world)) if _valid(c)]
    by_tpl = {t: [c for c in pool if c.template.id == t] for t in COUNTS}
    months = {e.start.strftime("%Y-%m") for e in world.events}
    # a window of one month is no range ("between September 2025 and September 2025"): an album of
    # one month has no window counts, the others have them all
    ranged = [c for c in pool if "{to}" in c.template.text]  # "between {from} and {to}" items
    assert all(c.args["from_month"] < c.args["to_month"] for c in ranged)
    assert all(by_tpl.values()) if len(months) > 1 else not any(by_tpl.values()), {
        t: len(v) for t, v in by_tpl.items()
    }
    for tpl, items in by_tpl.items():
        for c in items:
            clips = {o.episode for o in c.evidence}
            assert len(clips) == int(c.answer) >= 2, (tpl, c.args, c.answer, sorted(clips))
            if tpl == "retrieval.count.place.v1":  # every counted event's place is read, and cited
                places = {f for o in c.evidence for f in o.fact_ids() if f.endswith("_place")}
                assert len(places) == int(c.answer), (c.args, places)
            if tpl == "retrieval.brought.count.v1":  # seen with the object at each counted event
                held = [o for o in c.evidence if o.kind == "shot" and c.args["person"] in o.people]
                assert {o.episode for o in held} == clips, c.args
