"""Natural wording: every question form of every family, realised with every shipped and test
theme, has none of the known broken patterns; in every family the top surface form stays under
20 % of its items."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mnemoforge.english.check import broken_patterns
from mnemoforge.generators.icm import forms as icm_forms
from mnemoforge.generators.icm.questions import _candidates as icm_candidates
from mnemoforge.generators.icm.questions import _text as icm_text
from mnemoforge.generators.memeye import forms as memeye_forms
from mnemoforge.generators.memeye import questions as memeye_q
from mnemoforge.generators.memeye import world as memeye_world
from mnemoforge.generators.questions.common import Candidate, EvidenceIndex, solve_candidates
from mnemoforge.generators.realise import FORMS, Slots, fill
from mnemoforge.generators.smm import questions as smm_q
from mnemoforge.generators.smm import world as smm_world
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme


def _names(world: World) -> list[str]:
    return [p.name for p in world.people] + [e.name for e in world.entities if e.name[:1].isupper()]


TEST_THEMES = Path(__file__).resolve().parent / "themes"


@pytest.mark.parametrize("theme_file", ["life_album.yaml", "backstage_sao_paulo.yaml"])
def test_icm_forms_render_cleanly(theme_file: str, icm_plans) -> None:  # type: ignore[no-untyped-def]
    p = icm_plans.plan(theme_file)
    world, obs = p.world, list(p.observations)
    cands = solve_candidates(world, EvidenceIndex(obs), icm_candidates(world))
    assert len({c.template.id for c in cands}) >= 8
    for c in cands:
        for style in ("name", "relation", "description"):
            text = icm_text(world, c, style)
            assert not broken_patterns(text, _names(world)), (text, broken_patterns(text, _names(world)))
    # every form of every template, with every person, filled cleanly (not only the drawn one)
    for c in cands[:: max(1, len(cands) // 60)]:
        for _, form in icm_forms.FORMS.get(c.template.id, ()):
            fields = {
                k: "x" for k in ("verb", "place", "month", "day", "other", "object", "from", "to", "key")
            }
            fields |= {"person": world.people[0].name, "subj": "she", "verb": "went hiking"}
            out = form.format(**fields, obj="her", person_s=world.people[0].name + "'s")
            assert "{" not in out and not broken_patterns(out.replace(" x", " y"), _names(world)), out


@pytest.mark.parametrize("theme_file", ["life_album.yaml", "backstage_sao_paulo.yaml"])
def test_icm_top_form_under_a_fifth(theme_file: str, icm_plans) -> None:  # type: ignore[no-untyped-def]
    qs = icm_plans.questions(theme_file)
    every = {text: fid for forms in icm_forms.FORMS.values() for fid, text in forms}
    forms = Counter()
    for q in qs:
        fid = next((f for f in _form_ids(q.question, every)), q.lineage.template)
        forms[fid] += 1
    assert len(forms) >= 15 and forms.most_common(1)[0][1] <= 0.2 * len(qs), forms.most_common(3)


def _form_ids(question: str, forms: dict[str, str]) -> list[str]:
    """The forms whose fixed words (outside the slots) all appear in ``question``, longest first."""
    import re

    hits = []
    for text, fid in forms.items():
        parts = [p.strip() for p in re.split(r"\{\w+\}", text) if p.strip(" ,.?")]
        if all(p in question for p in parts):
            hits.append((-sum(map(len, parts)), fid))
    return [fid for _, fid in sorted(hits)]


def test_smm_forms_render_cleanly_and_no_form_dominates() -> None:
    theme = load_theme(THEMES_DIR / "office_launch.yaml")
    world = smm_world.plan_world(theme, theme.seed)
    cands = smm_q.plan_questions(theme, world)
    forms = Counter()
    for c in cands:
        form, text = smm_q.realised(theme, world, c)
        forms[form] += 1
        assert not broken_patterns(text, _names(world)), (text, broken_patterns(text, _names(world)))
        assert "current" not in text.lower()  # no word marks the conflict items
    assert forms.most_common(1)[0][1] <= 0.2 * len(cands), forms.most_common(3)


@pytest.mark.parametrize("path", [THEMES_DIR / "visual_diary.yaml", TEST_THEMES / "bakery_log.yaml"])
def test_memeye_forms_render_cleanly(path: Path) -> None:
    theme = load_theme(path)
    world = memeye_world.plan_world(theme, theme.seed)
    forms = Counter()
    items = list(memeye_q.plan_items(world))
    for tpl, args in items:
        c = Candidate(tpl, args, "", set(), [])
        text = memeye_q._text(world, c)
        assert not broken_patterns(text, _names(world)), (text, broken_patterns(text, _names(world)))
        forms[memeye_forms.frame(text, world.seed, tpl.id, args)[0]] += 1
    assert forms.most_common(1)[0][1] <= 0.2 * len(items), forms.most_common(3)


def test_smm_test_theme_forms_render_cleanly() -> None:
    theme = load_theme(TEST_THEMES / "ferry_crew.yaml")
    world = smm_world.plan_world(theme, theme.seed)
    for c in smm_q.plan_questions(theme, world):
        _, text = smm_q.realised(theme, world, c)
        assert not broken_patterns(text, _names(world)), (text, broken_patterns(text, _names(world)))


def test_every_realisation_form_fills_cleanly() -> None:
    slots = Slots(label="lead", name="Atlas Dashboard", person="Ana Lima", noun="project", via="owner")
    for forms in FORMS.values():
        for _, text in forms:
            out = fill(text, slots)
            assert not broken_patterns(out, ["Atlas Dashboard", "Ana Lima"]), out
    assert "James' project" in fill("{person_s} {noun}", Slots(person="James", noun="project"))


def test_broken_patterns_are_found() -> None:
    assert broken_patterns("What is the customer of the customer trip?")
    assert broken_patterns("Who joined the the park?")
    assert broken_patterns("Where did the Li Ming go?", ["Li Ming"])
    assert broken_patterns("What is the lead of {name}?")
    assert not broken_patterns("What is the lead of Atlas Dashboard?", ["Atlas Dashboard"])
