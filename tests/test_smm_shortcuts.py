"""Shortcut resistance of the shipped smm release: option sets, observed optional arguments,
surface markers, numbering and redundancy (the release comes from the `smm_release` fixture)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter

import pytest

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.tool_calls import score_calls, tools_of
from mnemoforge.schemas.questions import Question
from mnemoforge.validators.answerers.option_prior import PRIORS

from .smm_release import Release


@pytest.fixture
def rel(smm_release: Release) -> Release:
    return smm_release


def _prior_scores(q: Question) -> dict[str, float]:
    """Option-prior guessers (order-free; a tie earns a fractional point)."""
    opts, ans = q.options or [], q.answer

    def credit(picks: list[str]) -> float:
        return (ans in picks) / len(picks) if picks else 1 / len(opts)

    out: dict[str, float] = {}
    parts = [o.split("; ") for o in opts]
    if all(len(p) == len(parts[0]) > 1 for p in parts):  # slot majority
        common = [Counter(p[i] for p in parts).most_common(1)[0][0] for i in range(len(parts[0]))]
        score = [sum(a == b for a, b in zip(p, common, strict=True)) for p in parts]
        out["slot_majority"] = credit([o for o, sc in zip(opts, score, strict=True) if sc == max(score)])
    try:
        days = [dt.date.fromisoformat(o).toordinal() for o in opts]
    except ValueError:
        days = []
    try:
        nums = days or [float(o.replace(":", ".")) for o in opts]
    except ValueError:
        nums = []
    if nums:
        dist = [sum(abs(x - y) for y in nums) for x in nums]
        out["centroid"] = credit([o for o, d in zip(opts, dist, strict=True) if d == min(dist)])
        near = [sum(0 < abs(x - y) <= 7 for y in nums) for x in nums]
        out["neighbours"] = credit([o for o, n in zip(opts, near, strict=True) if n == max(near)])
        ranked = sorted(nums)
        mid = {ranked[1], ranked[2]}
        out["median"] = credit([o for o, x in zip(opts, nums, strict=True) if x in mid])
        out["latest"] = credit([o for o, x in zip(opts, nums, strict=True) if x == ranked[-1]])
        out["earliest"] = credit([o for o, x in zip(opts, nums, strict=True) if x == ranked[0]])
    lengths = Counter(len(o) for o in opts)
    out["unique_length"] = credit([o for o in opts if lengths[len(o)] == 1])
    words = Counter(w for o in opts for w in set(o.lower().split()))
    share = [sum(words[w] for w in set(o.lower().split())) for o in opts]
    out["shared_words"] = credit([o for o, sc in zip(opts, share, strict=True) if sc == max(share)])
    return out


def test_option_sets_do_not_point_at_the_answer(rel: Release) -> None:
    mcq = [q for q in rel.qs if q.options]
    assert len(mcq) >= 40
    totals: dict[str, list[float]] = {}
    for q in mcq:
        for name, sc in _prior_scores(q).items():
            totals.setdefault(name, []).append(sc)
    for name, scores in totals.items():  # every guesser scores over all MCQ items (1/4 where silent)
        acc = (sum(scores) + 0.25 * (len(mcq) - len(scores))) / len(mcq)
        assert acc <= 0.35, (name, acc)
        if len(scores) >= 10:  # and where it applies (e.g. dates), it stays well below a sure bet
            assert sum(scores) / len(scores) <= 0.5, (name, sum(scores) / len(scores))
    # and the shared option-prior answerer (slot majority, near-variant centre, lone form, sum of
    # two) singles out the answer of no item
    hits = [q.id for q in mcq if any(p(list(q.options or [])) == 0 for p in PRIORS.values())]
    assert not hits
    # ordered options (dates, times, numbers): the answer's rank among the four is spread
    ranks = Counter()
    for q in mcq:
        try:
            keys = sorted(float(o.replace("-", "").replace(":", ".")) for o in q.options or [])
            ranks[keys.index(float(q.answer.replace("-", "").replace(":", ".")))] += 1
        except ValueError:
            continue
    assert len(ranks) == 4 and max(ranks.values()) <= 0.45 * sum(ranks.values()), ranks


def test_function_calls_fill_observed_optional_arguments(rel: Release) -> None:
    tools = tools_of(rel.world)
    prefers = {(f.subject, f.object): f.value for f in rel.world.facts if f.kind == "prefers"}
    names = {p.name: p.id for p in rel.world.people}
    flights = 0
    for q in (q for q in rel.qs if q.labels["task"] == "function_calling"):
        assert "default" in q.question
        for step in q.structured_answer or []:
            for call in step["calls"]:
                if call["name"] != "book_flight":
                    continue
                flights += 1
                pid = names[call["arguments"]["passenger"]]
                assert call["arguments"]["seat"] == prefers[(pid, "seat")]  # observed, so filled
                assert any(f.startswith(f"f_chose_{pid}_seat_") for f in q.facts_read)
                dropped = json.loads(q.answer)
                for st in dropped:
                    for c in st["calls"]:
                        c["arguments"].pop("seat", None)
                assert score_calls(dropped, q.structured_answer, tools) == 0.0
            if call["name"] == "book_hotel":  # the default, spelled out or omitted, scores the same
                spelled = json.loads(q.answer)
                for st in spelled:
                    for c in st["calls"]:
                        if c["name"] == "book_hotel":
                            c["arguments"]["nights"] = 2
                assert score_calls(spelled, q.structured_answer, tools) == 1.0
                assert score_calls(spelled, q.structured_answer, rel.world) == 1.0
    assert flights
    with pytest.raises(ValueError, match="tool schemas"):
        score_calls([], [], {})


def _evidence_blocks(rel: Release) -> tuple[set[str], list[dict]]:
    blocks = read_jsonl(rel.root / "data/smm/blocks.jsonl")
    ev = {e for q in rel.qs for e in q.evidence}
    inside = {o for b in blocks if ev & set(b["observations"]) for o in b["observations"]}
    return inside, blocks


def test_evidence_carries_no_surface_marker(rel: Release) -> None:
    """Kinds, numbered tags and scaffold lead-ins occur outside evidence too: none of them picks
    out evidence much better than its base rate."""
    inside, _ = _evidence_blocks(rel)
    index = read_jsonl(rel.root / "media/index.jsonl")
    assert not [r for r in index if r["kind"].startswith("filler")]
    assert not [o for o in rel.obs if o.kind.startswith("filler")]
    markers = {
        "tag": lambda o: bool(re.search(r"\[(Table|Doc\.|Fig\.|Card|Photo) \d+\]", o.content)),
        "note": lambda o: o.kind == "note",
        **{f"kind:{k}": (lambda o, k=k: o.kind == k) for k in ("table", "document", "chat_screenshot")},
        **{
            f"lead:{w}": (lambda o, w=w: w in o.content)
            for w in ("Re ", "Quick one about", "Update on", "Before I forget", "Is that final?")
        },
    }
    base = len(inside) / len(rel.obs)
    for name, has in markers.items():
        hits = [o for o in rel.obs if has(o)]
        ev = sum(o.id in inside for o in hits)
        assert hits and ev < len(hits), (name, "never outside evidence")
        assert ev / len(hits) <= max(0.75, 2.5 * base), (name, ev, len(hits))
    # hard negatives: true facts nobody asks about, stated in the same way
    read = {f for q in rel.qs for f in q.facts_read}
    negatives = [o for o in rel.obs if o.expresses and not {e.fact for e in o.expresses} & read]
    assert len(negatives) >= 10


def test_attachments_are_numbered_in_order_per_source(rel: Release) -> None:
    seen: dict[str, list[int]] = {}
    for o in rel.obs:  # stream order
        m = re.search(r"\[(?:Table|Doc\.|Fig\.|Card|Photo) (\d+)\]", o.content)
        if m:
            seen.setdefault(o.source, []).append(int(m.group(1)))
    assert len(seen) >= 5
    for src, numbers in seen.items():
        assert numbers == list(range(1, len(numbers) + 1)), src


def test_items_are_not_redundant(rel: Release) -> None:
    by_task: dict[str, list[Question]] = {}
    for q in rel.qs:
        by_task.setdefault(q.labels["task"], []).append(q)
    for task, qs in by_task.items():
        cores = []
        for q in qs:
            if task == "function_calling":
                ents = sorted(
                    rel.world.fact(f).object
                    if f.startswith("f_member_")
                    else f.split("_", 2)[2].rsplit("_", 2)[0]
                    for f in q.facts_read
                    if f.startswith(("f_member_", "f_attr_"))
                )
                cores.append(
                    (tuple(c["name"] for st in q.structured_answer or [] for c in st["calls"]), ents[0])
                )
            else:
                cores.append(
                    tuple(sorted(f for f in q.facts_read if not f.startswith(("f_member_", "f_code_"))))
                )
        assert len(set(cores)) == len(cores), task
        answers = Counter(q.answer for q in qs)
        assert answers.most_common(1)[0][1] <= max(2, 0.34 * len(qs)), (task, answers)
