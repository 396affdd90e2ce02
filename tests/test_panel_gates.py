"""Panel gates reject crafted bad items for the right reason and keep good ones; verdicts cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mnemoforge.schemas.theme import GateSpec
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from mnemoforge.validators.answerers import embed_cache
from mnemoforge.validators.answerers.panel import Panel
from mnemoforge.validators.answerers.protocol import Answer, Context
from mnemoforge.validators.answerers.symbolic import SymbolicAnswerer
from mnemoforge.validators.gate_runner import run_all_gates
from mnemoforge.validators.gates import GateContext
from mnemoforge.validators.panel_gates import (
    AnswerBalance,
    MinimalCaption,
    ModalityNecessity,
    OptionOnly,
    Oracle,
    TextOnlyClue,
)
from mnemoforge.validators.prompts import PROMPTS_DIR
from mnemoforge.validators.text_retrieval import retrieval_shortcut

THEME = load_theme(DEFAULT_THEME)


class Oracular:
    """Knows every answer (a stand-in for a model that has memorised the benchmark)."""

    id = "oracular"

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        ref = context.question.answer if context.question else ""
        if options:
            return Answer.mcq(self.id, options, options.index(ref), ref)
        return Answer(ref, None, ref, True, None, self.id)


class NeedsImages(Oracular):
    """Answers only when it is shown the evidence images."""

    id = "needs-images"

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        if not any(i.image_paths for i in context.items):
            return Answer.failed(self.id, "no image")
        return super().answer(question, options, context)


@pytest.fixture(scope="module")
def setup(icm_plans):  # type: ignore[no-untyped-def]
    p = icm_plans.plan()  # the default theme, seed 7
    return p.world, list(p.observations), icm_plans.questions(screen=False)  # gates' cases too


def _ctx(setup, **panels) -> GateContext:
    world, obs, qs = setup
    return GateContext(
        world, {o.id: o for o in obs}, qs, panels={k: Panel(v, rule="any") for k, v in panels.items()}
    )


def test_option_only(setup) -> None:
    _, _, qs = setup
    q = next(q for q in qs if q.options)
    v = OptionOnly().check(q, _ctx(setup, option_only=[Oracular()]))
    assert not v.keep and v.reason.startswith("shortcut") and v.scores["rotation_em"] == 1.0
    assert OptionOnly().check(q, _ctx(setup, option_only=[SymbolicAnswerer()])).keep  # no memory, no answer


def test_text_leak_and_text_only(setup) -> None:
    world, obs, qs = setup
    ctx = _ctx(setup, text_only_clue=[NeedsImages()])
    places = [q for q in qs if q.program.fn == "meeting_place"]
    minilm = embed_cache.available()  # the gate runs MiniLM retrieval where it is installed
    q = next(q for q in places if not retrieval_shortcut(q, ctx, minilm=minilm))  # retrieval misses it
    assert TextOnlyClue().check(q, ctx).keep
    shot = ctx.observations[q.evidence[0]]
    ctx.observations[shot.id] = shot.model_copy(update={"content": f"A sign reads {q.answer.upper()}."})
    v = TextOnlyClue().check(q, ctx)
    assert not v.keep and v.reason.startswith("text leak") and shot.id in v.reason
    v = TextOnlyClue().check(q, _ctx(setup, text_only_clue=[Oracular()]))
    assert not v.keep and "claims visual evidence" in v.reason


def test_minimal_caption_and_oracle(setup) -> None:
    _, _, qs = setup
    q = next(q for q in qs if q.program.fn == "object_brought")
    assert MinimalCaption().check(q, _ctx(setup, minimal_caption=[NeedsImages()])).keep
    v = MinimalCaption().check(q, _ctx(setup, minimal_caption=[Oracular()]))
    assert not v.keep and "minimal captions" in v.reason
    ctx = _ctx(setup, oracle=[SymbolicAnswerer()])
    assert Oracle().check(q, ctx).keep
    v = Oracle().check(q.model_copy(update={"evidence": []}), ctx)
    assert not v.keep and "not answerable from its gold evidence" in v.reason


def test_modality_necessity(setup) -> None:
    world, obs, qs = setup
    ctx = _ctx(setup, modality_necessity=[SymbolicAnswerer()])
    q = next(q for q in qs if q.program.fn == "who_brought")
    assert ModalityNecessity().check(q, ctx).keep  # the name line and the face shot are both needed
    # add a second observation of the same scene: each unit is now redundant
    shot = ctx.observations[q.evidence_shots[0]]
    twin = shot.model_copy(update={"id": shot.id + "_twin"})
    ctx.observations[twin.id] = twin
    v = ModalityNecessity().check(q.model_copy(update={"evidence": [*q.evidence, twin.id]}), ctx)
    assert not v.keep and "not minimal" in v.reason and twin.id in v.reason


def test_answer_balance(setup) -> None:
    _, _, qs = setup
    base = next(q for q in qs if q.category == "identity_recall")
    flood = [base.model_copy(update={"id": f"icm_flood_{i:02d}", "question": f"q{i}?"}) for i in range(20)]
    ctx = _ctx(setup)
    ctx.questions = [*qs, *flood]
    verdicts = [AnswerBalance().check(q, ctx) for q in ctx.questions]
    rejected = [v for v in verdicts if not v.keep]
    assert rejected and all("over-represented answer" in v.reason for v in rejected)
    assert any(v.keep for v in verdicts if v.item.startswith("icm_flood_"))  # up to the cap survive


def test_gate_verdicts_cache_and_a_prompt_change_reruns_only_its_calls(setup, tmp_path: Path) -> None:
    from tests.llm_servers import LLMServer

    world, obs, qs = setup
    prompts = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, prompts)
    with LLMServer("openai", default_text="A") as srv:
        chat = {
            "kind": "chat",
            "provider": "openai",
            "model": "m",
            "base_url": srv.base_url,
            "api_key_env": None,
        }
        spec = GateSpec(
            answerers={"symbolic": {}, "lexical": {}, "chat": chat},
            panels={"option_only": ["chat"], "oracle": ["symbolic"], "text_only_clue": ["lexical"]},
            prompts_dir=str(prompts),
        )
        cache = tmp_path / "cache"
        first = run_all_gates(qs, GateContext(world, {o.id: o for o in obs}), spec, cache_dir=cache)
        calls = len(srv.requests)
        assert calls == 4 * sum(1 for q in qs if q.options)  # four rotations per MCQ item
        again = run_all_gates(qs, GateContext(world, {o.id: o for o in obs}), spec, cache_dir=cache)
        assert sum(again.computed.values()) == 0 and len(srv.requests) == calls
        assert [v.model_dump() for v in again.verdicts] == [v.model_dump() for v in first.verdicts]
        # change the MCQ prompt: only the chat answerer's gate is recomputed
        mcq = prompts / "answer_mcq.txt"
        mcq.write_text(mcq.read_text().replace("letter of the correct option", "single letter of the option"))
        third = run_all_gates(qs, GateContext(world, {o.id: o for o in obs}), spec, cache_dir=cache)
        assert {g for g, n in third.computed.items() if n} == {"option_only"}
        assert len(srv.requests) == 2 * calls


def test_open_prompt_change_reruns_only_open_items(setup, tmp_path: Path) -> None:
    from tests.llm_servers import LLMServer

    world, obs, qs = setup
    qs = [*qs[:6], *(q.model_copy(update={"options": None, "rotations": None}) for q in qs[6:8])]
    prompts = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, prompts)
    with LLMServer("openai", default_text="A") as srv:
        chat = {
            "kind": "chat",
            "provider": "openai",
            "model": "m",
            "base_url": srv.base_url,
            "api_key_env": None,
        }
        spec = GateSpec(answerers={"chat": chat}, panels={"oracle": ["chat"]}, prompts_dir=str(prompts))
        run_all_gates(qs, GateContext(world, {o.id: o for o in obs}), spec, cache_dir=tmp_path / "c")
        (prompts / "answer_open.txt").write_text((prompts / "answer_open.txt").read_text() + "Be brief.\n")
        again = run_all_gates(qs, GateContext(world, {o.id: o for o in obs}), spec, cache_dir=tmp_path / "c")
        assert again.computed["oracle"] == 2 and again.cached["oracle"] == 6  # just the two open items


def test_a_bare_number_counts_as_written_only_where_it_is_written() -> None:
    """A MiniLM pick of a count the text never states is a guess: ``written_in`` searches a bare
    number as a whole number (not inside 16, 6.5 or 1,600) instead of treating it as unsearchable."""
    from mnemoforge.schemas.questions import Program, Question
    from mnemoforge.validators.text_retrieval import written_in

    q = Question.model_construct(id="q", answer="6", options=["6", "7", "8", "9"], program=Program(fn="n"))
    assert not written_in(q, ["we stacked 16 sacks", "it was 6.5 m long", "1,600 loaves", "6a"])
    assert written_in(q, ["there are 6 sacks by the wall"])
    assert written_in(q, ["six, no: 6."])
    word = Question.model_construct(id="w", answer="on", options=["on", "off"], program=Program(fn="state"))
    assert written_in(word, [])  # too short to search for: a semantic pick still counts
