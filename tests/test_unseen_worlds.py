"""Three themes of domains the project has never seen (tests/themes/*_icm|_smm|_memeye.yaml: a
Kenyan tea estate, a New Zealand pilot station with titled names, a Norwegian mountain hut), built
and audited as an outside reader would: from the release files alone, with the ``holidays``
library and plain regexes, not with the coherence module under test. Every release holds

* 0 objects in two states (or two places) at one time: timelines, the facts pictures express,
  and the pixels of one object in the pictures of one session;
* 0 same-person actions: no tool call with one person in two arguments, no line naming its
  own speaker (self-introductions aside);
* 0 weekday/date disagreements, 0 "between X and X" ranges, 0 dates outside the span;
* 0 holidays from a country the theme did not name (and every occasion is a holiday of its
  calendar on that very date);
* 0 lines where the diarist keeps an object the theme gives to someone else.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from pathlib import Path

import holidays
import pytest
from PIL import Image

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES

pytestmark = pytest.mark.integration  # three builds (about 10 s each on a quiet machine)

THEMES = ("tea_estate_icm.yaml", "pilot_station_smm.yaml", "fjord_hut_memeye.yaml")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # fmt: skip
DATE_WORDS = rf"(\d{{1,2}}) ({'|'.join(MONTHS)}) (\d{{4}})"
OTHER_COUNTRIES = ("CN", "BR", "US", "GB", "CH")


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory, fjord_hut_build) -> dict[str, tuple[Path, Path]]:  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import build

    out = {}
    for name in THEMES:
        res = (  # fjord_hut_memeye: the session's build (conftest.py), also read by test_memeye_declared
            fjord_hut_build
            if name == "fjord_hut_memeye.yaml"
            else build(TEST_THEMES / name, outputs=tmp_path_factory.mktemp(name.split(".")[0]), workers=1)
        )
        out[name] = (res.release_dir, res.run_dir)
    return out


def _texts(release: Path) -> dict[str, str]:
    """Every text a release holds: observations, captions, questions with answers and options."""
    out: dict[str, str] = {}
    for path in sorted((release / "data").rglob("*.jsonl")):
        for i, row in enumerate(read_jsonl(path)):
            for key in ("content", "caption", "question", "answer"):
                if isinstance(row.get(key), str):
                    out[f"{path.name}:{row.get('id', i)}:{key}"] = row[key]
            for j, o in enumerate(row.get("options") or []):
                out[f"{path.name}:{row.get('id', i)}:option{j}"] = str(o)
    return out


def _world(release: Path) -> World:
    return World.model_validate_json((release / "data/world.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", THEMES)
def test_no_object_in_two_states_at_one_time(releases, name: str) -> None:  # type: ignore[no-untyped-def]
    release, run = releases[name]
    world = _world(release)
    assert world.timelines
    for t in world.timelines:
        spans = sorted(t.spans, key=lambda s: s.start)
        assert all(s.end is None or s.end > s.start for s in spans), (t.subject, t.attribute)
        for a, b in zip(spans, spans[1:], strict=False):
            assert a.end is not None and a.end <= b.start, (t.subject, t.attribute, a, b)
    # what each observation shows is what the timeline holds at its time
    held = {s.fact: (t, s) for t in world.timelines for s in t.spans if s.fact}
    facts = {f.id: f for f in world.facts}
    obs = [o for p in (release / "data").rglob("observations.jsonl") for o in read_jsonl(p)]
    for o in obs:
        when = dt.datetime.fromisoformat(o["timestamp"])
        for e in o["expresses"]:
            if e["fact"] in held and facts[e["fact"]].kind in ("attribute", "state"):
                t, _ = held[e["fact"]]
                assert t.value_at(when) == facts[e["fact"]].value, (o["id"], e["fact"])
    if name.endswith("_memeye.yaml"):  # the pixels: one collar colour and one held thing a session
        layouts = {r["observation"]: r["layout"] for r in read_jsonl(run / "episodes/memeye_layouts.jsonl")}
        by_session: dict[str, set] = defaultdict(set)
        for o in obs:
            if o["media"] and o["source"] == "trail_log":
                img = Image.open(release / o["media"][0]).convert("RGB")
                lay = layouts[o["id"]]
                by_session[o["episode"]].add(
                    (img.getpixel(tuple(lay["colour_point"])), lay["person"]["item"])
                )
        assert by_session and all(len(v) == 1 for v in by_session.values()), dict(by_session)
        changes = {v for vs in by_session.values() for v in vs}
        assert len(changes) > 1  # ...and the collar and the held thing do change over the winter


@pytest.mark.parametrize("name", THEMES)
def test_no_same_person_actions(releases, name: str) -> None:  # type: ignore[no-untyped-def]
    release, run = releases[name]
    world = _world(release)
    names = {p.name: p.id for p in world.people}
    for q in read_jsonl(run / "questions/candidates.jsonl"):
        for step in q.get("structured_answer") or []:
            for call in step["calls"]:
                people = [v for v in call["arguments"].values() if isinstance(v, str) and v in names]
                assert len(people) == len(set(people)), (q["id"], call)
    forms = {
        p.id: {p.name, *(w for w in p.name.split() if not w.endswith(".") and len(w) > 2)}
        for p in world.people
    }
    for p in (release / "data").rglob("observations.jsonl"):
        for o in read_jsonl(p):
            text, speaker = o["content"], None
            for line in text.splitlines():
                who, sep, said = line.partition(": ")
                speaker = names.get(who) or (world.protagonist if who == "User" else None)
                if o["kind"] == "speech":
                    speaker, said = (o["people"] or [None])[0], line
                if speaker is None or any(f"f_name_{speaker}" == e["fact"] for e in o["expresses"]):
                    continue  # nobody of the cast, or a self-introduction
                hits = [f for f in forms[speaker] if re.search(rf"(?<!\w){re.escape(f)}(?!\w)", said)]
                others = [q for q in world.people if q.id != speaker and any(h in q.name for h in hits)]
                assert not hits or others, (o["id"], line)


@pytest.mark.parametrize("name", THEMES)
def test_dates_agree_with_weekdays_ranges_and_span(releases, name: str) -> None:  # type: ignore[no-untyped-def]
    release, _ = releases[name]
    theme = load_theme(TEST_THEMES / name)
    for where, text in _texts(release).items():
        for m in re.finditer(rf"({'|'.join(WEEKDAYS)}),? {DATE_WORDS}", text):
            d = dt.date(int(m[4]), MONTHS.index(m[3]) + 1, int(m[2]))
            assert WEEKDAYS[d.weekday()] == m[1], (where, text)
        for m in re.finditer(r"between (\w+ \d{4}) and (\w+ \d{4})", text):
            assert m[1] != m[2], (where, text)
        dates = [dt.date.fromisoformat(x) for x in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", text)]
        dates += [dt.date(int(y), MONTHS.index(mo) + 1, int(d)) for d, mo, y in re.findall(DATE_WORDS, text)]
        assert all(theme.start <= d <= theme.end for d in dates), (where, text)
        if "weekend" in text.lower() and where.endswith((":answer", ":option0", ":option1")):
            assert all(d.weekday() >= 5 for d in dates), (where, text)


@pytest.mark.parametrize("name", THEMES)
def test_holidays_only_from_the_theme_calendar(releases, name: str) -> None:  # type: ignore[no-untyped-def]
    release, _ = releases[name]
    theme = load_theme(TEST_THEMES / name)
    world = _world(release)
    cal = theme.calendar
    assert cal is not None and cal.country is not None
    years = list(range(theme.start.year, theme.end.year + 1))
    own = holidays.country_holidays(cal.country, subdiv=cal.subdiv, years=years, language="en_US")
    declared = {(d, str(n)) for d, n in own.items()} | {(e.date, e.name) for e in cal.extra}
    assert world.calendar.country == cal.country
    assert {(h.date, h.name) for h in world.calendar.holidays} <= declared
    assert world.calendar.holidays  # the span holds some of them
    names = {n for _, n in declared}
    foreign = set()
    for c in OTHER_COUNTRIES:
        foreign |= {str(n) for n in holidays.country_holidays(c, years=years, language="en_US").values()}
    foreign -= names
    for where, text in _texts(release).items():
        assert not [n for n in foreign if n in text], (where, text)
    on = {h.date: h.name for h in world.calendar.holidays}
    for e in world.events:
        assert e.occasion in ("ordinary day", on.get(e.start.date())), (e.id, e.occasion)
    for clip in read_jsonl(release / "data/icm/clips.jsonl") if name.endswith("_icm.yaml") else []:
        day = dt.datetime.fromisoformat(clip["shots"][0]["start"]).date()
        assert clip["occasion"] in ("calibration", "ordinary day", on.get(day)), clip["id"]
    if name.endswith("_icm.yaml"):  # Madaraka Day and the estate's own day fall in the span
        assert {"Madaraka Day", "Estate Founders Day"} <= set(on.values())


def test_nobody_keeps_what_the_theme_gives_to_someone_else(releases) -> None:  # type: ignore[no-untyped-def]
    release, _ = releases["fjord_hut_memeye.yaml"]
    world = _world(release)
    others = [o.name for o in world.objects if o.owner not in (None, world.protagonist)]
    said = [o["content"] for o in read_jsonl(release / "data/memeye/observations.jsonl")]
    assert others and not [s for s in said for n in others if re.search(rf"(?i)\b(my|keep the) {n}\b", s)]
    assert any("guest book" in s for s in said)  # the diarist's own object is still talked about


def test_sources_carry_only_what_they_are_for(releases) -> None:  # type: ignore[no-untyped-def]
    """Each pilot-station source shows only facts of the topics it declares; emails go from people
    (an outside contact or a colleague) to the inbox's owner, with a subject from their content."""
    release, run = releases["pilot_station_smm.yaml"]
    theme = load_theme(TEST_THEMES / "pilot_station_smm.yaml")
    assert theme.smm is not None
    carries = {s.id: set(s.carries) for s in theme.smm.sources}
    topic = {(k.kind, a.key): a.topic_of() for k in theme.smm.entity_kinds for a in k.attributes}
    kind_of = {e.id: e.kind for e in theme.smm.entities}
    for b in read_jsonl(run / "episodes/smm_blocks.jsonl"):
        for f in b["facts"]:
            m = re.fullmatch(r"f_attr_(.+)_(\w+?)_[01r]", f)
            ent = next((e for e in kind_of if m and m[1] == e), None)
            if m and ent and carries[b["source"]]:
                key = m[0][len(f"f_attr_{ent}_") : -2]
                assert topic[(kind_of[ent], key)] in carries[b["source"]], (b["source"], f)
    people = {p.name for p in theme.cast} | {c.name for c in theme.smm.contacts}
    mails = [
        a["spec"]
        for a in read_jsonl(run / "episodes/smm_attachments.jsonl")
        if a["source"] == "station_inbox"
    ]
    assert mails and all(m["sender"] in people and m["to"] == "Hemi Parata" for m in mails)
    assert {m["sender"] for m in mails} & {c.name for c in theme.smm.contacts}  # outside contacts write
    assert all(m.get("subject", m.get("title")) != "Station inbox" for m in mails)
    funnel = json.loads((release / "gates/funnel.json").read_text())
    assert funnel["candidates"] >= funnel["kept"] > 0
