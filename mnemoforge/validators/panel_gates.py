"""Gates that ask a panel of answerers: option-only, text-only clue (with a text-leak check),
minimal caption, oracle answerability, modality necessity (family-level answer balance and
category quotas: ``balance_gates``).

Each builds the context its test allows (nothing; the clue text; captions instead of images; the
gold evidence with its media; the evidence minus one unit) and asks the gate's panel. MCQ items
are asked under all four rotations (rotation-averaged exact match); open items are judged.
"""

from __future__ import annotations

import json
import re

from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.answerers.panel import Panel, question_rotation_em
from mnemoforge.validators.answerers.protocol import IMAGE_SUFFIXES, Context, ContextItem
from mnemoforge.validators.balance_gates import (  # noqa: F401  (re-exported: the gate runner's imports)
    SPLIT_TOLERANCE,
    AnswerBalance,
    CategoryQuota,
    balanced_ids,
    scaled_quotas,
)
from mnemoforge.validators.gates import GateContext, verdict
from mnemoforge.validators.text_retrieval import retrieval_shortcut

VISUAL = {Channel.scene, Channel.pixel}
TEXTUAL = {Channel.text, Channel.speech, Channel.caption}
STOP = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}
CHANCE = 0.25


def _evidence(q: Question, ctx: GateContext) -> list[Observation]:
    return [ctx.observations[e] for e in q.evidence if e in ctx.observations]


def claims_visual(q: Question, evidence: list[Observation]) -> bool:
    """Some fact the program read reaches the evidence only through pixels or the scene."""
    read = set(q.facts_read)
    channels: dict[str, set[Channel]] = {}
    for o in evidence:
        for e in o.expresses:
            if e.fact in read:
                channels.setdefault(e.fact, set()).add(e.channel)
    return any(ch <= VISUAL for ch in channels.values())


def _restricted(o: Observation, keep: set[Channel]) -> Observation:
    return o.model_copy(update={"expresses": [e for e in o.expresses if e.channel in keep]})


def _score(panel: Panel, q: Question, context: Context) -> tuple[float, dict[str, float]]:
    """Panel score: rotation-averaged EM for MCQ, 0/1 for open items; plus each member's."""
    if q.options and q.rotations:
        em = question_rotation_em(panel, q, context)
        return em.panel, dict(em.per_answerer)
    res = panel.ask_question(q, context)
    return float(res.verdict), {k: float(v) for k, v in res.correct.items()}


def _context(
    q: Question,
    ctx: GateContext,
    obs: list[Observation],
    texts: dict[str, str] | None = None,
    images: bool = True,
) -> Context:
    full = Context.from_observations(obs, world=ctx.world, question=q, media_root=ctx.media_root, texts=texts)
    if images:
        return full
    items = tuple(ContextItem(i.observation_id, i.text, (), i.transcript) for i in full.items)
    return Context(items, full.world, full.observations, full.question)


class _PanelGate:
    name = version = ""
    embeds_questions = False
    """Whether the gate embeds each item's question text (its text retrieval does)."""

    def panel(self, ctx: GateContext) -> Panel | None:
        return ctx.panels.get(self.name)

    def prepare(self, questions: list[Question], ctx: GateContext) -> None:
        """Embed every option (and question) text these items' MiniLM members will ask for in one
        batch: one encoder call fills products that thousands of per-item calls of five texts
        would leave mostly padding. A text's vector depends on its tokens only, never on its
        batch (``minilm.MiniLM.encode``), so verdicts are the same."""
        panel = self.panel(ctx)
        members = any(getattr(a, "embeds_options", False) for a in panel.answerers) if panel else False
        if panel is None or not _minilm_on() or not (members or self.embeds_questions):
            return
        from mnemoforge.validators.answerers import embed_cache

        texts = {o for q in questions for o in q.options or ()}
        if self.embeds_questions:
            texts |= {q.question for q in questions if q.options}
        embed_cache.embed(sorted(texts))


class OptionOnly(_PanelGate):
    """Question and options with no memory at all: answering under every rotation is a shortcut."""

    name, version = "option_only", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        panel = self.panel(ctx)
        if panel is None or not q.options:
            return verdict(self, q, True, "not applicable (no panel or open-ended item)")
        em, per = _score(panel, q, Context(question=q))
        if em >= 1.0:
            return verdict(
                self,
                q,
                False,
                f"shortcut: answered from the options alone under all rotations by "
                f"{[a for a, v in per.items() if v >= 1.0]}",
                rotation_em=em,
            )
        return verdict(self, q, True, "options alone do not give the answer", rotation_em=em)


class TextOnlyClue(_PanelGate):
    """The clue rounds' text without images or audio; plus a text-leak check on visual evidence and
    text-only retrieval solvers (BM25 and MiniLM over all text written or spoken before the cutoff,
    and a passage naming the answer beside a person or object the question names: ``text_retrieval``)."""

    name = "text_only_clue"
    embeds_questions = True

    @property
    def version(self) -> str:  # type: ignore[override]
        """'7', plus '+minilm' where MiniLM runs (the verdict cache never mixes the two)."""
        from mnemoforge.validators.answerers import embed_cache

        return "7+minilm" if embed_cache.available() else "7"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        ev = _evidence(q, ctx)
        leak = text_leak(q, ev)
        if leak:
            return verdict(self, q, False, f"text leak: {leak}", leaks=1.0)
        panel = self.panel(ctx)
        if panel is None:
            return verdict(self, q, True, "no text leak (no panel configured)", leaks=0.0)
        if q.options and claims_visual(q, ev):
            why = retrieval_shortcut(q, ctx, minilm=_minilm_on())
            if why:
                return verdict(self, q, False, f"{why}, though it claims visual evidence", leaks=0.0)
        obs = [_restricted(o, TEXTUAL) for o in ev]
        em, _ = _score(panel, q, _context(q, ctx, obs, images=False))
        if em >= 1.0 and claims_visual(q, ev):
            return verdict(
                self,
                q,
                False,
                "answerable from text alone though it claims visual evidence",
                rotation_em=em,
                leaks=0.0,
            )
        return verdict(
            self, q, True, "text alone does not replace the claimed channels", rotation_em=em, leaks=0.0
        )


def answer_values(answer: str) -> list[str]:
    """The values an answer states: the leaves of a JSON answer (a call list's argument values,
    not its tool or argument names), else the parts of a '; '-joined answer."""
    try:
        data = json.loads(answer)
    except ValueError:
        return [p.strip() for p in answer.split(";") if p.strip()]
    out: list[str] = []

    def leaves(x: object, key: str = "") -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                leaves(v, k)
        elif isinstance(x, list):
            for v in x:
                leaves(v, key)
        elif isinstance(x, str | int | float) and not isinstance(x, bool) and key != "name":
            out.append(str(x))

    leaves(data)
    return out


def _value_pattern(value: str) -> re.Pattern[str] | None:
    """The whole value as a phrase (its words in order, any separators); None for a value with no
    word of three letters or more (a lone '2' would match every table number)."""
    words = re.findall(r"[a-z0-9]+", value.lower())
    if not any(len(w) > 2 and w not in STOP for w in words):
        return None
    return re.compile(r"\b" + r"\W+".join(re.escape(w) for w in words) + r"\b")


def _minilm_on() -> bool:
    """MiniLM text retrieval over the whole history runs beside BM25 where the ``ml`` extra is
    installed (the gate's version says which)."""
    from mnemoforge.validators.answerers import embed_cache

    return embed_cache.available()


def text_leak(q: Question, evidence: list[Observation]) -> str:
    """An answer value found in the text of an observation whose answer-bearing fact is visual
    only. Values are matched whole, so the words of a source title, a tool or an argument name
    that an answer shares ('Shift roster' beside a call to ``update_roster``) are no leak."""
    patterns = {v: p for v in answer_values(q.answer) if (p := _value_pattern(v)) is not None}
    read = set(q.facts_read)
    for o in evidence:
        visual_only = {e.fact for e in o.expresses if e.fact in read and e.channel in VISUAL}
        visual_only -= {e.fact for e in o.expresses if e.channel in TEXTUAL}
        found = sorted(v for v, p in patterns.items() if p.search(o.content.lower()))
        if visual_only and found:
            return f"{found} in the text of {o.id}, which claims a visual channel"
    return ""


class MinimalCaption(_PanelGate):
    """Images replaced by very short generic captions: still answerable means pixels were not needed."""

    name, version = "minimal_caption", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        panel = self.panel(ctx)
        if panel is None:
            return verdict(self, q, True, "not applicable (no panel configured)")
        ev = _evidence(q, ctx)
        texts = {o.id: minimal_caption(o) for o in ev if o.kind == "shot" or _has_image(o)}
        obs = [_restricted(o, TEXTUAL) for o in ev]
        em, _ = _score(panel, q, _context(q, ctx, obs, texts=texts, images=False))
        if em >= 1.0 and claims_visual(q, ev):
            return verdict(
                self,
                q,
                False,
                "answerable from minimal captions though it claims visual evidence",
                rotation_em=em,
            )
        return verdict(self, q, True, "minimal captions do not give the answer", rotation_em=em)


def _has_image(o: Observation) -> bool:
    return any(m.lower().endswith(IMAGE_SUFFIXES) for m in o.media)


def minimal_caption(o: Observation) -> str:
    """The observation with its image replaced by a very short generic caption: a shot's head
    count, or the image's kind ('room photo') after the message text that came with it."""
    if o.kind == "shot":
        n = len(o.people)
        return f"a photo of {n} {'person' if n == 1 else 'people'}"
    tag = f"[image: {o.kind.replace('_', ' ')}]"
    return f"{o.content} {tag}" if o.content else tag


class Oracle(_PanelGate):
    """The gold evidence with its real media: the panel must beat chance."""

    name, version = "oracle", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        panel = self.panel(ctx)
        if panel is None:
            return verdict(self, q, True, "not applicable (no panel configured)")
        em, per = _score(panel, q, _context(q, ctx, _evidence(q, ctx)))
        floor = CHANCE if q.options else 0.0
        if em <= floor:
            return verdict(
                self, q, False, f"not answerable from its gold evidence (score {em:.2f} <= chance)", score=em
            )
        return verdict(self, q, True, "answerable from its gold evidence", score=em)


class ModalityNecessity(_PanelGate):
    """Mask each evidence unit in turn: the answer must no longer be derivable (a minimal set).

    Profile items accumulate redundant evidence by design; for them the count of units that can be
    dropped is reported, not enforced.
    """

    name, version = "modality_necessity", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        panel = self.panel(ctx)
        if panel is None:
            return verdict(self, q, True, "not applicable (no panel configured)")
        full = _context(q, ctx, _evidence(q, ctx))
        keys = mask_keys(panel, full, q.evidence)
        if keys is None:
            spare = [e for e in q.evidence if _score(panel, q, full.without(e))[0] >= 1.0]
        else:  # masks that leave the same answers share one score (each unit is still masked)
            memo: dict[tuple, float] = {}
            for e, key in zip(q.evidence, keys, strict=True):
                if key not in memo:
                    memo[key] = _score(panel, q, full.without(e))[0]
            spare = [e for e, key in zip(q.evidence, keys, strict=True) if memo[key] >= 1.0]
        if q.category == "profile_inference":
            return verdict(
                self,
                q,
                True,
                f"accumulated evidence: {len(spare)} of {len(q.evidence)} units spare",
                spare=float(len(spare)),
            )
        if spare:
            return verdict(
                self, q, False, f"not minimal: still answerable without {spare}", spare=float(len(spare))
            )
        return verdict(self, q, True, "every evidence unit is necessary", spare=0.0)


def mask_keys(panel: Panel, context: Context, ids: list[str]) -> list[tuple] | None:
    """Per id, a key the panel's answers on ``context.without(id)`` depend on alone (the question
    fixed): each member's ``mask_keys``; None when some member declares none (a model reads the
    text, so every masked context is its own)."""
    per_member = []
    for a in panel.answerers:
        keys_of = getattr(a, "mask_keys", None)
        if keys_of is None:
            return None
        per_member.append(keys_of(context, ids))
    return list(zip(*per_member, strict=True))


PANEL_GATES = [OptionOnly(), TextOnlyClue(), MinimalCaption(), Oracle(), ModalityNecessity()]
