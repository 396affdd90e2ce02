"""The smm theme controls its world (tests/themes/ferry_crew.yaml): routed conflicts appear where
the theme says, an email source carries sender, subject and date, fixed values and role-restricted
people hold, and every date lies inside the span and on the weekday an entity's name names."""

from __future__ import annotations

import datetime as dt

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES

THEME = load_theme(TEST_THEMES / "ferry_crew.yaml")


def _world(release) -> World:  # type: ignore[no-untyped-def]
    return World.model_validate_json((release.release_dir / "data/world.json").read_text())


def test_routed_conflicts_are_asked_and_placed_as_declared(ferry_release) -> None:  # type: ignore[no-untyped-def]
    assert THEME.smm is not None
    obs = {o["id"]: o for o in read_jsonl(ferry_release.release_dir / "data/smm/observations.jsonl")}
    cands = read_jsonl(ferry_release.run_dir / "questions/candidates.jsonl")
    where: dict[str, set[str]] = {}
    for o in obs.values():
        for e in o["expresses"]:
            where.setdefault(e["fact"], set()).add(o["source"])
    for r in THEME.smm.conflicts:
        stem = f"f_attr_{r.entity}_{r.key}"
        assert where[f"{stem}_0"] == {r.stale}, r
        assert where[f"{stem}_1"] == {r.update}, r
        assert f"{stem}_r" not in where  # no rumour declared: none drawn
        # every routed conflict is planned and asked; the shortcut gates may still reject one
        # whose option set gives it away, so the asking is checked on the candidates
        asked = [
            q for q in cands if q["category"] == "conflict_resolution" and f"{stem}_1" in q["facts_read"]
        ]
        assert asked, r
        assert {obs[e]["source"] for e in asked[0]["evidence"]} >= {r.stale, r.update}


def test_every_routed_conflict_is_kept_as_routed(ferry_release) -> None:  # type: ignore[no-untyped-def]
    """'Announced in the group chat, corrected in the roster' and the supplier email that moves the
    rope delivery date are both kept in the release: the answer is the update, the routed stale
    value is among the options, and the evidence spans the stale and the update source (the
    date options no longer carry a lexical tell that the option-only solvers would use)."""
    assert THEME.smm is not None
    release = ferry_release.release_dir
    world = _world(ferry_release)
    obs = {o["id"]: o for o in read_jsonl(release / "data/smm/observations.jsonl")}
    kept = read_jsonl(release / "data/smm/questions.jsonl")
    names = {p.id: p.name for p in world.people}
    for r in THEME.smm.conflicts:
        stem = f"f_attr_{r.entity}_{r.key}"
        stale, update = world.fact(f"{stem}_0"), world.fact(f"{stem}_1")
        items = [q for q in kept if q["category"] == "conflict_resolution" and update.id in q["facts_read"]]
        assert items, f"routed conflict {r.entity}.{r.key} not kept"
        for q in items:
            assert q["answer"] == names.get(update.value or "", update.value)
            assert names.get(stale.value or "", stale.value) in q["options"]
            assert {obs[e]["source"] for e in q["evidence"]} >= {r.stale, r.update}
    email = next(r for r in THEME.smm.conflicts if r.update == "supplier_mail")
    assert email.key == "arrival"  # the email changes a delivery date


def test_email_source_shows_sender_subject_and_date(ferry_release) -> None:  # type: ignore[no-untyped-def]
    rows = read_jsonl(ferry_release.run_dir / "episodes/smm_attachments.jsonl")
    mails = [r["spec"] for r in rows if r["source"] == "supplier_mail"]
    evidence = [m for m in mails if m["kind"] == "email"]
    assert evidence and len(mails) > len(evidence)  # evidence and filler alike
    names = {p.name for p in THEME.cast}
    for m in mails:  # from a person to the inbox's owner (the protagonist), never "To: <source title>"
        assert m["sender"] in names and m["to"] == "Ines Moura" and m["sender"] != m["to"]
    for m in evidence:
        assert m["subject"] and m["subject"] != "Chandlery mail"
        assert THEME.start <= dt.date.fromisoformat(m["date"]) <= THEME.end
    kinds = {o["kind"] for o in read_jsonl(ferry_release.release_dir / "data/smm/observations.jsonl")}
    assert "email" in kinds


def test_fixed_values_roles_and_dates(ferry_release) -> None:  # type: ignore[no-untyped-def]
    w = _world(ferry_release)
    val = {(f.subject, f.object): f.value for f in w.facts if f.id.endswith("_0") and f.kind == "attribute"}
    assert val[("islet_crossing", "vessel")] == "Petrel"
    assert val[("islet_crossing", "mate")] == "tomas_berg"
    assert val[("rope_order", "supplier")] == "Tarwell Cordage"
    roles = {p.id: p.role for p in THEME.cast}
    mates = [f.value for f in w.facts if f.kind == "attribute" and f.object == "mate"]
    assert mates and all(roles[m or ""] in ("deckhand", "engineer") for m in mates)
    dates = [
        f for f in w.facts if f.kind == "attribute" and f.value and len(f.value) == 10 and f.value[4] == "-"
    ]
    assert dates
    for f in dates:
        d = dt.date.fromisoformat(f.value or "")
        assert THEME.start <= d <= THEME.end, f
        if f.subject == "thursday_drop":
            assert d.weekday() == 3, f


def test_statistics_report_the_routes(ferry_release) -> None:  # type: ignore[no-untyped-def]
    import json

    stats = json.loads((ferry_release.release_dir / "dataset_statistics.json").read_text())["smm"]
    routes = stats["conflict_routes"]
    assert len(routes) == 2
    for r in routes:
        assert r["shown"]["stale"] == [r["declared"]["stale"]]
        assert r["shown"]["update"] == [r["declared"]["update"]]
        assert r["shown"]["rumour"] == []
    assert all(r["items"] >= 1 for r in routes)  # every route has a kept item
