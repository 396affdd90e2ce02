"""Four options for the smm QA items, drawn so that the option set alone does not point at the answer.

- The distractors of one asked value come from the same pool as the answer (the attribute's
  values, the cast, a profile field), the item's own competing values first (a stale value, a
  rumour), so no option is odd in form.
- Ordered values (dates, times, integers) are drawn around a **hidden base** (dates: a window
  centred on a random day near the answer) and accepted only when the answer lands at the rank
  planned for it: ``ranks_for`` finds the ranks each item can take (its stale or rumoured value
  and a late date leave some out), and ``rank_plan.assign_ranks`` plans them over all the
  release's items at once, the most constrained first, so a closest-to-mean, median, largest or
  smallest guess is at chance; a set at the planned rank that no option-only rule reads is
  preferred (more draws are taken to find one), for an item claiming visual evidence one that
  no text-retrieval solver reads (``retrieval_screen``), and the answer is closest to the
  options' mean only for the quarter of items whose centrality target asks it.
- A preference item offers the contrary choices the person was seen making.
- Up to ``TRIES`` sets are drawn; those on which a shared option prior (slot majority,
  near-variant centre, lone form, sum of two) singles out any option are dropped, and of the rest
  the one whose length and centrality tells match a drawn rank is kept
  (:mod:`mnemoforge.generators.option_balance`), so no centroid, edit-distance or length rule
  finds the answer. Dates are drawn on the answer's weekday when the entity's name names one
  (else on working days), inside the theme's span, so neither the weekday nor a digit pattern
  ("-19" among "-2x") sets the answer apart.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence
from typing import Any

from mnemoforge.dates import named_days
from mnemoforge.generators.option_balance import by_question_target, pick_balanced, untold
from mnemoforge.generators.questions import ordered as numeric
from mnemoforge.generators.questions.common import Candidate
from mnemoforge.generators.questions.fairness import screen_for
from mnemoforge.generators.questions.programs import Lexicon
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.validators.answerers.option_prior import PRIORS

N = 4
TRIES = 40
ORDERED = ("date", "time", "integer")
LEXICAL = ("odd_one_out", "centroid", "longest", "shortest", "most_specific_number")
MARGIN = 0.5  # below the gate's 0.6, so a kept set is not on the edge


def _spec_of(theme: Theme, key: str) -> tuple[str, list[str]]:
    """(type, value pool) of an attribute or profile key."""
    s = theme.smm
    assert s is not None
    for k in s.entity_kinds:
        for a in k.attributes:
            if a.key == key:
                return a.type, list(a.values)
    prof = next((f for f in s.profile if f.key == key), None)
    return "string", list(prof.values) if prof else []


def _sort_key(typ: str, v: str) -> Any:
    return int(v) if typ == "integer" else v


def _date_pool(
    answer: str,
    rng: random.Random,
    weekdays: frozenset[int] | None = None,
    span: tuple[dt.date, dt.date] | None = None,
) -> list[str]:
    """Dates in a window around a hidden base near the answer: on ``weekdays`` (a 15-week window)
    or on Monday-Friday (6 weeks), never outside ``span`` (the window slides inside it)."""
    a = dt.date.fromisoformat(answer)
    reach = 52 if weekdays is not None else 21
    base = a + dt.timedelta(
        days=rng.randint(-reach + 3, reach - 3) if weekdays is not None else rng.randint(-18, 18)
    )
    if span is not None:  # the window slides inside the theme's span: no option outside it
        lo, hi = span[0] + dt.timedelta(days=reach), span[1] - dt.timedelta(days=reach)
        base = min(max(base, lo), hi) if lo <= hi else span[0] + (span[1] - span[0]) / 2
    days = [base + dt.timedelta(days=d) for d in range(-reach, reach + 1)]
    days = [d for d in days if span is None or span[0] <= d <= span[1]]
    ok = (lambda d: d.weekday() in weekdays) if weekdays is not None else (lambda d: d.weekday() < 5)  # noqa: E731
    return [d.isoformat() for d in days if ok(d)]


def ranked(
    answer: str, required: list[str], pool: list[str], typ: str, rng: random.Random, want: int | None = None
) -> list[str]:
    """Three distractors (``required`` first) that put the answer at rank ``want`` where feasible
    (the item's stratified length target: ordered values differ little in length), else at a
    uniformly drawn rank."""
    req = [v for v in dict.fromkeys(required) if v != answer][: N - 1]
    rest = [v for v in dict.fromkeys(pool) if v != answer and v not in req]
    need = N - 1 - len(req)
    if len(rest) < need:
        return []
    key = lambda v: _sort_key(typ, v)  # noqa: E731
    below_req = sum(key(v) < key(answer) for v in req)
    below = [v for v in rest if key(v) < key(answer)]
    above = [v for v in rest if key(v) > key(answer)]
    feasible = [
        r for r in range(N) if 0 <= r - below_req <= len(below) and 0 <= need - (r - below_req) <= len(above)
    ]
    # a side drawn from barely more values than it needs gives near neighbours only ("2027-04-20,
    # -21, -23" beside "2027-04-19": an odd one out); near the span's edge, prefer ranks whose draws
    # come from at least twice as many values (dates never leave the span)
    spread = [
        r for r in feasible if len(below) >= 2 * (r - below_req) and len(above) >= 2 * (need - r + below_req)
    ]
    feasible = spread or feasible
    if not feasible:
        return req + rng.sample(rest, need)
    r = rng.choice(feasible)
    r = want if want in feasible else r
    lo = r - below_req
    return req + rng.sample(below, lo) + rng.sample(above, need - lo)


def plain(answer: str, required: list[str], pool: list[str], rng: random.Random) -> list[str]:
    req = [v for v in dict.fromkeys(required) if v != answer][: N - 1]
    rest = [v for v in dict.fromkeys(pool) if v != answer and v not in req]
    need = N - 1 - len(req)
    return req + rng.sample(rest, need) if len(rest) >= need else []


def options_for(
    theme: Theme,
    world: World,
    c: Candidate,
    qid: str,
    target: tuple[int, int] | None = None,
    question: str = "",
    rank: int | None = None,
    quiet: Callable[[list[str]], bool] | None = None,
) -> list[str] | None:
    """``[answer, d1, d2, d3]`` or None when the World cannot supply three distractors; ``target``:
    the answer's rank by length and by centrality (``option_balance.stratified_targets``);
    ``question``: the item's text (its sets are screened against the cast priors and grammar);
    ``rank``: where an ordered answer stands among its options (0 = smallest; the program's turn,
    ``rank_plan.assign_ranks``), else the length target's rank; ``quiet``: of the sets at that
    rank, those it passes are preferred (``retrieval_screen``)."""
    s = theme.smm
    assert s is not None
    rng = derive_rng(world.seed, qid, "options")
    fair = screen_for(question, world)  # no cast prior picks the answer, no distractor ruled out
    # candidate sets on which no shared option prior singles out any option (not just the answer:
    # a prior that only ever fires on distractors would be a shortcut by elimination); of those,
    # the one whose length and centrality tells match a drawn rank (option_balance)
    clean: list[list[str]] = []
    unread: list[list[str]] = []  # clean sets at the planned rank that no option-only rule reads
    screen = untold(question, False)
    last = None
    for n in range(3 * TRIES):  # a planned rank may take more draws (a date window moves per draw)
        if n >= TRIES and (rank is None or unread):
            break
        last = _draw(theme, world, c, rng, rank if rank is not None else target[0] if target else None)
        if last is None:
            break
        clean_set = all(prior(last) is None for prior in PRIORS.values()) and fair(last)
        if clean_set and last[1:] not in clean:
            clean.append(last[1:])
            if rank is not None and numeric.rank(last) == rank and screen(last):
                unread.append(last[1:])
    if not clean:
        return last
    if rank is not None:  # the planned rank: a set no option-only rule reads, else any clean one at it
        quieter = [d for d in unread if quiet is None or quiet([c.answer, *d])]
        clean = quieter or unread or [d for d in clean if numeric.rank([c.answer, *d]) == rank] or clean
        # the answer closest to the options' mean for a quarter of the items (the centrality target)
        central = target is not None and target[1] == 0
        clean = [d for d in clean if _closest_to_mean([c.answer, *d]) == central] or clean
    if question and target:  # the answer is the option closest in meaning to the question 1 in 4
        clean = by_question_target(question, c.answer, clean, target[1] == 0)
    return [c.answer, *(pick_balanced(c.answer, clean, rng, target) or [])]


def text_history(observations: Sequence[Observation]) -> Any:
    """The run's text indexed once for :func:`retrieval_screen` (``validators.text_retrieval.
    TextHistory``), or None without the ``ml`` extra."""
    from mnemoforge.validators import text_retrieval as tr
    from mnemoforge.validators.answerers import embed_cache

    return tr.TextHistory(observations) if embed_cache.available() else None


def retrieval_screen(
    history: Any, q: Question, evidence: Sequence[Observation]
) -> Callable[[list[str]], bool] | None:
    """For an item that claims visual evidence: a check that neither text-retrieval solver of the
    release's shortcut figures (BM25 and MiniLM over the text before the cutoff, forced to choose)
    picks the answer of an option set (the answer first). None for an item answered from text (a
    retrieval hit is then memory, not a shortcut) or without a ``history`` (:func:`text_history`)."""
    read, channels = set(q.facts_read), {}  # visual as shortcut_stats.claims_visual counts it
    for o in evidence:
        for e in o.expresses:
            if e.fact in read:
                channels.setdefault(e.fact, set()).add(e.channel.value)
    if history is None or not any(ch <= {"scene", "pixel"} for ch in channels.values()):
        return None

    def quiet(options: list[str]) -> bool:
        trial = q.model_copy(update={"options": list(options)})
        return all(_forced(s) == 0 for s in (history.bm25_scores(trial), history.minilm_scores(trial)))

    return quiet


def _closest_to_mean(options: list[str]) -> bool:
    """The answer (``options[0]``) is the one option closest to the options' mean."""
    scores = numeric.closest_to_mean(options)
    return scores is not None and _forced(scores) == 1


def _forced(scores: Sequence[float]) -> float:
    best = max(scores)
    return (scores[0] == best) / sum(s == best for s in scores)


def ranks_for(
    theme: Theme,
    world: World,
    c: Candidate,
    qid: str,
    question: str = "",
    quiet: Callable[[list[str]], bool] | None = None,
    tries: int = TRIES // 2,
) -> list[int]:
    """The ranks (0 = smallest) the answer can take among ordered options (dates, times, integers)
    given the item's own rival values and the pool: for each rank, up to ``tries`` draws asking
    for it (a date pool's window moves with each draw), kept only where a drawn set passes the
    screens ``options_for`` applies (no option prior, fair to ``question``, no option-only rule
    reads it: "-19" among "-20, -21, -22" is an odd one out); where some rank has a set ``quiet``
    passes too (``retrieval_screen``), only such ranks. Empty when the options are not ordered or
    the World cannot supply them. The joint plan over a release's items
    (``rank_plan.assign_ranks``) reads these before any option set is kept."""
    rng = derive_rng(world.seed, qid, "ranks")
    fair, screen = screen_for(question, world), untold(question, False)
    got: list[int] = []
    hushed: list[int] = []  # ranks with a set ``quiet`` passes too
    for r in range(N):
        for _ in range(tries):
            drawn = _draw(theme, world, c, rng, r)
            if drawn is None:
                return hushed or got
            at = numeric.rank(drawn)
            if at is None:
                return []
            if at == r and all(p(drawn) is None for p in PRIORS.values()) and fair(drawn) and screen(drawn):
                got = got if r in got else [*got, r]
                if quiet is None or quiet(drawn):
                    hushed.append(r)
                    break
    return hushed or got


def _draw(
    theme: Theme, world: World, c: Candidate, rng: random.Random, want: int | None = None
) -> list[str] | None:
    s = theme.smm
    assert s is not None
    lex = Lexicon(world)
    read = [world.fact(f) for f in sorted(c.read)]
    if c.template.program == "preference_of":
        spec = next(p for p in s.preferences if p.key == c.args["key"])
        shown = [f.value or "" for f in read if f.kind == "chose"]
        distractors = plain(c.answer, [v for v in shown if v != c.answer], list(spec.values), rng)
    else:
        key = c.args["key"]
        asked = [f for f in read if f.kind == "attribute" and f.object == key]
        subject = asked[0].subject if asked else c.args.get("entity", "")
        own = [f for f in asked if f.subject == subject]  # the rival value the item reads, if any
        typ, values = _spec_of(theme, key)
        if typ == "person":
            values = [p.id for p in world.people]
        required = [lex.names.get(f.value or "", f.value or "") for f in own]
        if typ == "date":
            ent = next((e for e in world.entities if e.id == subject), None)
            label = next((a.label for k in s.entity_kinds for a in k.attributes if a.key == key), "")
            days = named_days(label, world.calendar.weekend)  # the weekend a label asks for
            if days is None and ent is not None:
                days = named_days(ent.name, world.calendar.weekend)  # the weekday a name names
            if days is None and dt.date.fromisoformat(c.answer).weekday() >= 5:
                days = frozenset({dt.date.fromisoformat(c.answer).weekday()})  # a weekend answer
            values = _date_pool(c.answer, rng, days, (theme.start, theme.end))
        pool = [lex.names.get(v, v) for v in values]
        if typ in ORDERED:
            distractors = ranked(c.answer, required, pool, typ, rng, want)
        else:
            distractors = plain(c.answer, required, pool, rng)
    if len(set(distractors)) < N - 1 or c.answer in distractors:
        return None
    rng.shuffle(distractors)
    return [c.answer, *distractors]
