"""The identity-centric family (ICM-Bench): Recall, Cross-Episode Retrieval, Profile Inference.

Every answer is computed by a program on the World; every item records its target people,
supporting clips and shots, and its latest accessible clip (none for Profile).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from itertools import chain

from mnemoforge.dates import month_name, weekday_name
from mnemoforge.generators.icm import (  # noqa: F401  (register programs)
    change_programs,
    routine_programs,
    weekday_programs,
)
from mnemoforge.generators.icm.candidates import (  # noqa: F401  (re-exported)
    _candidates,
    _valid,
    binds_face_to_name,
)
from mnemoforge.generators.icm.forms import realise as realise_form
from mnemoforge.generators.icm.part_programs import part_fields
from mnemoforge.generators.icm.profile_options import profile_options
from mnemoforge.generators.icm.templates import FAMILY, PROFILE, RECALL, RESERVE, RETRIEVAL, T  # noqa: F401
from mnemoforge.generators.option_balance import (
    QuestionShare,
    ValueShare,
    stratified_targets,
    tells,
)
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    make_question,
    person_reference,
    pronoun,
    question_id,
    recall_cutoff,
    solve_candidates,
)
from mnemoforge.generators.questions.diversity import diverse_order, features
from mnemoforge.generators.questions.fairness import fair_set, near_duplicates
from mnemoforge.generators.questions.options import COUNTED, count_ranks, program_share, with_options
from mnemoforge.generators.rank_plan import RankSpread
from mnemoforge.generators.text_share import TextShare, joined
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Program, Question
from mnemoforge.schemas.world import World


def _month_text(m: str) -> str:
    year, month = m.split("-")
    return f"{month_name(int(month))} {year}"


def _day_text(d: str) -> str:
    day = dt.date.fromisoformat(d)
    return f"{weekday_name(day)} {day.day} {month_name(day)} {day.year}"


def _text(world: World, c: Candidate, style: str) -> str:
    a = c.args
    verb = next((e.verb for e in world.events if e.activity == a.get("activity")), "")
    who = a.get("person")
    fields = {
        "person": person_reference(world, who, style) if who else "",
        "subj": pronoun(world, who) if who else "",
        "verb": verb,
        "place": world.place(a["place"]).name if "place" in a else "",
        "month": _month_text(a["month"]) if "month" in a else "",
        "day": _day_text(a["day"]) if "day" in a else "",
        "noun": next((e.noun for e in world.events if e.activity == a.get("activity")), ""),
        "other": world.person(a["other"]).name if "other" in a else "",
        "object": world.object(a["object"]).name if "object" in a else "",
        "from": _month_text(a["from_month"]) if "from_month" in a else "",
        "to": _month_text(a["to_month"]) if "to_month" in a else "",
        "key": a.get("key", ""),
        "species": a.get("species", ""),
        "weekday": a.get("weekday", ""),
        **part_fields(world, a),
    }
    return realise_form(c.template.id, c.template.text, fields, world.seed, a)[1]  # surface forms


def _relation_cited(world: World, c: Candidate) -> bool:
    """The protagonist's relation to the item's person is among the facts the evidence expresses."""
    who = c.args.get("person")
    cited = {f for o in c.evidence for f in o.fact_ids()}
    return any(
        r.a == world.protagonist and r.b == who and f"f_rel_{r.a}_{r.b}" in cited for r in world.relations
    )


def _targets(world: World, c: Candidate) -> list[str]:
    if c.template.program == "who_brought":
        return sorted({f.subject for f in world.facts if f.id in c.read and f.kind == "brought"})
    return sorted(p for p in (c.args.get("person"), c.args.get("other")) if p)


def _question(world: World, c: Candidate, last_order: int, world_hash: str) -> Question:
    """The candidate as a question: its text in a seeded reference style, its cutoff."""
    style = derive_rng(world.seed, c.template.id, c.args, "style").choice(
        ["name", "name", "relation", "description"]
    )
    if style == "relation" and not _relation_cited(world, c):
        style = "name"  # a relation the evidence does not state cannot name a person
    q = make_question(world, FAMILY, c, _text(world, c, style), _targets(world, c), None, world_hash)
    if c.template.category != PROFILE:
        q = q.model_copy(update={"cutoff": recall_cutoff(world, q.id, c.evidence, last_order)})
    return q


def _features(c: Candidate) -> dict:
    return features(c.template.program, c.template.id, c.answer, c.args)


def generate_icm(
    world: World,
    observations: list[Observation],
    counts: dict[str, int],
    last_order: int,
    screen: bool = True,
    captions: Sequence[Mapping[str, object]] = (),
) -> list[Question]:
    """Plan candidates per category (``counts``), answers computed. Each category's candidates are
    taken in diversity order (``questions/diversity``: programs, answer values, templates, people,
    months) and realised with options until ``counts`` are planned. A candidate is passed over when
    its options cannot be made fair (a cast prior or the question's grammar gives the answer away),
    when it repeats a planned one (``fairness.near_duplicates``), or when a lexical option-only
    rule would answer too many planned items (:class:`OptionRuleShare`): the gates would reject it.
    ``screen=False`` plans such items too, because the gates' own tests need them. Once a category
    is full, the answers ``answer_balance`` would find over-keyed in their program are dropped
    (:func:`over_keyed`) and the freed places are filled from the next candidates. Counts take
    the answer's rank among their options in turn (``RankSpread``); per category, option sets put
    the answer closest in meaning to the question for about a quarter of the items
    (``QuestionShare``) and the answer the category's most often keyed option only for about a
    quarter of them (``ValueShare``), unless those costs would make the set unfair or let the
    lexical option-only rules read more than the plain draw's (then the plain draw is kept). Once
    the text-only sentence solver (over ``observations`` and the album's ``captions``, as the
    shortcut panel reads them) answers a quarter of a category's planned items, sets it answers
    cost more (:class:`~mnemoforge.generators.text_share.TextShare`), and an item it still answers
    is passed over, as is one whose set the value prior answers past its share; items passed over
    for these two shares are planned last, once the category's other candidates are used up, and a
    program left without an item keeps its first one passed over (:func:`programs_left_out`)."""
    index = EvidenceIndex(observations)
    pool = [c for c in solve_candidates(world, index, _candidates(world)) if _valid(c)]
    world_hash = content_hash(world)
    ids = {key(c): question_id(FAMILY, c.template, Program(fn=c.template.program, args=c.args)) for c in pool}
    reserve = {ids[key(c)] for c in pool if c.template.id in RESERVE}
    targets = {  # answer ranks spread over items (the reserve's apart: it leaves the others' as they were)
        **stratified_targets(sorted(set(ids.values()) - reserve), world.seed),
        **stratified_targets(sorted(reserve), world.seed),
    }
    ranks = RankSpread(world.seed)
    opts = {PROFILE: profile_options}  # profile answers are majorities: screened for option-only tells
    shares = Shares(ranks, TextShare(observations, captions))
    rule_share, near_question, prior, text = shares.rule, shares.near_question, shares.prior, shares.text
    out: list[Question] = []
    for category, n in counts.items():
        taken: list[Question] = []
        cands = [c for c in pool if c.template.category == category]
        first, spare = [], []
        for c in cands:
            (spare if c.template.id in RESERVE else first).append(c)
        order = chain(  # the reserve templates only once the others are used up
            diverse_order(first, _features, key, world.seed, FAMILY, category),
            diverse_order(spare, _features, key, world.seed, FAMILY, category),
        )
        passed: list[tuple[Question, int | None]] = []  # passed over for a share: taken last
        tipped: list[tuple[Question, int | None]] = []  # passed over for the lexical rules' share
        while len(taken) < n:
            for c in order:  # lazy: a later pass goes on from where the last one stopped
                q = _question(world, c, last_order, world_hash)
                rank = ranks.pick("counts", count_ranks(q)) if q.program.fn in COUNTED else None
                # a quarter of the targets ask it, while the planned items leave room for it
                close = targets[q.id][1] == 0 and near_question.close(category)
                extra = prior.cost(category, targets[q.id][0] == 0 and prior.room(category))
                read = text.cost(category, q) if screen else None
                plain = opts.get(category, with_options)(world, q, targets[q.id], rank=rank, extra=read)
                q = opts.get(category, with_options)(
                    world, q, targets[q.id], rank=rank, close=close, extra=joined(extra, read)
                )
                if screen and q.options and not _as_fair(q, plain, world):
                    q = plain  # the closeness and prior costs must not cost the item or a lexical tell
                if screen and q.options and not fair_set(q.question, q.options, world):
                    continue
                if screen and near_duplicates([*out, *taken, q]):  # the planned ones repeat nothing
                    continue
                if screen and q.options and rule_share.tips(q.options):
                    tipped.append((q, rank))
                    continue
                if screen and (text.tips(category, q) or prior.tips(category, q.options)):
                    passed.append((q, rank))
                    continue
                shares.take(category, q, rank, taken)
                if len(taken) >= n:
                    break
            while passed and len(taken) < n:  # the order is used up: fill the request from those
                q, rank = passed.pop(0)  # passed over for the text or prior share, in their order
                if not near_duplicates([*out, *taken, q]):
                    shares.take(category, q, rank, taken)
            surplus = over_keyed(taken) if screen else set()
            if not surplus:
                break
            for q in taken:
                if q.id in surplus:
                    shares.add(category, q, -1)
            taken = [q for q in taken if q.id not in surplus]  # and fill the freed places from the rest
        out += taken + programs_left_out(taken, passed + tipped, out)
    return sorted(out, key=lambda q: q.id)


def programs_left_out(
    taken: list[Question], passed: list[tuple[Question, int | None]], planned: list[Question]
) -> list[Question]:
    """The first item passed over for a share (text, value prior, lexical rules) of each program
    the category has no planned item of: every program the World supports keeps a candidate (the
    gates and the category quota then decide, by diversity over programs). They are planned beside
    the balanced items, not counted in any share, so the items planned after them are drawn as
    without them."""
    have = {q.program.fn for q in taken}
    out: list[Question] = []
    for q, _ in passed:
        if q.program.fn not in have and not near_duplicates([*planned, *taken, *out, q]):
            have.add(q.program.fn)
            out.append(q)
    return out


def _as_fair(q: Question, plain: Question, world: World) -> bool:
    """Whether ``q``'s options (drawn with the closeness and prior costs) are fair and let the
    lexical option-only rules read no more than ``plain``'s (drawn without them) do."""
    if not plain.options or not q.options:
        return False
    lexical = sum(tells(q.options)[r] for r in LEXICAL_RULES)
    return fair_set(q.question, q.options, world) and lexical <= sum(
        tells(plain.options)[r] for r in LEXICAL_RULES
    )


LEXICAL_RULES = ("shortest", "longest", "centroid", "odd_one_out", "edit_centroid", "edit_odd")
RULE_CAP = 0.27
"""The most an option-only rule may answer of the planned multiple-choice items: the shortcut
panel's bound is chance + 5 points (0.30 for four options), and the gates then drop some items."""


class OptionRuleShare:
    """How often each lexical option-only rule (shortest, longest, centroid, odd one out, by
    characters and by edits) answers the planned items (ties share the credit, as in the shortcut
    panel). Most sets are drawn at ranks spread over the release, but a set with no free choice (a
    six-person cast leaves an "apart from" item exactly four names; weekday names) keeps whatever
    ranks its values give; those items are passed over once a rule would answer more than
    :data:`RULE_CAP` of the planned items (one item of slack)."""

    def __init__(self) -> None:
        self.n = 0
        self.hits = dict.fromkeys(LEXICAL_RULES, 0.0)

    def tips(self, options: list[str] | None) -> bool:
        if not options:
            return False
        got = tells(options)
        return any(got[r] > 0 and self.hits[r] + got[r] > RULE_CAP * (self.n + 1) + 1 for r in LEXICAL_RULES)

    def add(self, options: list[str] | None, sign: int = 1) -> None:
        if options:
            got = tells(options)
            self.n += sign
            for r in LEXICAL_RULES:
                self.hits[r] += sign * got[r]


class Shares:
    """The shares icm planning keeps over the items planned so far: the lexical option-only rules
    (:class:`OptionRuleShare`), the MiniLM closest-to-the-question rule and the category value
    prior (``option_balance``), the text-only sentence solver (``text_share``), and the counts'
    answer ranks."""

    def __init__(self, ranks: RankSpread, text: TextShare) -> None:
        self.ranks = ranks
        self.rule = OptionRuleShare()
        self.near_question = QuestionShare()  # the answer closest in meaning to the question: 1 in 4
        self.prior = ValueShare()  # the answer the category's most often keyed option: 1 in 4
        self.text = text  # the text-only sentence solver's pick: 1 in 4

    def add(self, category: str, q: Question, sign: int = 1) -> None:
        """Count a planned item in every share (``sign`` -1: one dropped again)."""
        self.rule.add(q.options, sign)
        self.near_question.add(category, q.question, q.options, sign)
        self.prior.add(category, q.options, sign)
        self.text.add(category, q, sign)

    def take(self, category: str, q: Question, rank: int | None, taken: list[Question]) -> None:
        """Plan ``q`` (a count's answer at ``rank``): appended to ``taken`` and counted."""
        if rank is not None and q.options:
            self.ranks.take("counts", rank)
        taken.append(q)
        self.add(category, q)


def over_keyed(planned: list[Question]) -> set[str]:
    """Ids of the planned items (the latest planned first) whose answer ``answer_balance`` would
    reject as over-represented in its program: at most 1/k + 5 points of a program's multiple-choice
    items key one answer, counted over the program's items that remain. The cap is checked on the
    planned set, not item by item as it grows: a program with few answers (six people) passes
    through sizes where any next item over-keys (five items, five names: a sixth repeats one, 2 of 6
    > 30 %) on its way to a balanced larger set."""
    by_program: dict[str, list[Question]] = {}
    for q in planned:
        if q.options:
            by_program.setdefault(q.program.fn, []).append(q)
    out: set[str] = set()
    for items in by_program.values():
        items = list(items)
        while items:
            cap = max(1, math.floor(program_share(items[0]) * len(items) + 1e-9))
            keyed: dict[str, int] = {}
            for q in items:
                keyed[q.answer] = keyed.get(q.answer, 0) + 1
            worst = max(keyed, key=lambda a: (keyed[a], a))
            if keyed[worst] <= cap:
                break
            last = next(q for q in reversed(items) if q.answer == worst)
            items.remove(last)
            out.add(last.id)
    return out


def key(c: Candidate) -> str:
    return content_hash(c.template.id, c.args)
