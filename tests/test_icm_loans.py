"""Objects lent for an event: who brought an object is a fact of the event, not its owner by rule,
so a cast-prior solver (the owner) cannot answer "who brought the X" and face-name binding items
survive the fairness screen. The loan is one timeline: the World's holder, the brought fact,
the shots' props and holders, and the coherence check agree."""

from __future__ import annotations

import datetime as dt

from mnemoforge.generators.coherence import world_problems
from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.world import LEND_RATE, plan_world
from mnemoforge.theme_io import THEMES_DIR, load_theme


def _world():  # type: ignore[no-untyped-def]
    theme = load_theme(THEMES_DIR / "life_album.yaml")
    return theme, plan_world(theme, theme.seed, 60)


def test_loans_are_facts_of_the_event_and_one_timeline() -> None:
    theme, world = _world()
    owner = {o.id: o.owner for o in world.objects}
    lent = [(e, o, who) for e in world.events for o, who in e.carriers.items()]
    brought = sum(len(e.objects) for e in world.events)
    assert lent and 0.1 < len(lent) / brought < 2 * LEND_RATE, (len(lent), brought)
    facts = {f.id: f for f in world.facts}
    for e, o, who in lent:
        assert who in e.participants and who != owner[o] and owner[o] in e.participants
        assert facts[f"f_{e.id}_brought_{o}"].subject == who
        # the holder timeline: the carrier during the event, the owner before and after
        assert world.value_at(o, "holder", e.start) == who
        assert world.value_at(o, "holder", e.start - dt.timedelta(minutes=1)) == owner[o]
        assert world.value_at(o, "holder", e.end) == owner[o]
    for e in world.events:  # an object nobody lent is brought by its owner
        for o in set(e.objects) - set(e.carriers):
            assert facts[f"f_{e.id}_brought_{o}"].subject == owner[o]
    # promises are the owner's own, kept by bringing it themselves
    for f in (f for f in world.facts if f.kind == "promised"):
        assert owner[f.object] == f.subject
    assert not [p for p in world_problems(world, theme) if p.code == "ownership"]


def test_a_lent_object_is_shown_with_its_carrier() -> None:
    theme, world = _world()
    clips, _ = plan_album(theme, world)
    events = {e.id: e for e in world.events}
    seen = 0
    for clip in clips:
        ev = events.get(clip.event or "")
        if ev is None:
            continue
        for shot in clip.shots:
            for o in shot.props:
                by = ev.carriers.get(o)
                if by is not None:
                    seen += 1
                    assert by in shot.visible and shot.holders.get(o) == by, (clip.id, shot.id, o)
    assert seen > 0


def test_an_album_at_icm_scale_plans_every_slot_with_people() -> None:
    """At 840 clips (seed 7) one slot's day had everyone busy or away; the slot moves to the same
    weekday a week or more away instead of planning an event nobody attends (which crashed)."""
    theme = load_theme(THEMES_DIR / "life_album.yaml")
    world = plan_world(theme, 7, 839)
    assert len(world.events) == 839
    assert all(e.participants for e in world.events)
    assert world_problems(world, theme) == []
