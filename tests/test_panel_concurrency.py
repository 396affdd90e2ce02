"""Gate panels call models concurrently, with the same verdicts as serial calls."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from mnemoforge.validators.answerers.panel import Panel, map_ordered, rotation_em
from mnemoforge.validators.answerers.protocol import Context, ContextItem

from .llm_servers import LLMServer, Recorded

# found, not imported: importing openai costs ~1 CPU-s at collection on every worker
pytestmark = pytest.mark.skipif(find_spec("openai") is None, reason="needs the openai package")


def _chat(srv: LLMServer, name: str):  # type: ignore[no-untyped-def]
    from mnemoforge.validators.chat_answerer import make_chat_answerer

    return make_chat_answerer(
        provider="openai", model=name, base_url=srv.base_url, api_key_env=None, max_concurrency=8, name=name
    )


def _first_option_letter_of_tea(rec: Recorded) -> str:
    """Answers the letter under which 'tea' is listed (so the right answer in every rotation)."""
    text = rec.json["messages"][-1]["content"]
    text = text if isinstance(text, str) else " ".join(p.get("text", "") for p in text)
    for line in text.splitlines():
        if line.endswith(". tea"):
            return line[0]
    return "A"


def test_map_ordered_keeps_input_order() -> None:
    import time

    out = map_ordered(lambda x: (time.sleep(0.01 * (5 - x)), x)[1], range(5), 5)
    assert out == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("workers", [1, 4])
def test_rotations_and_members_are_asked_at_once_with_identical_results(workers: int) -> None:
    options = ["tea", "coffee", "juice", "water"]
    rotations = [[0, 1, 2, 3], [1, 0, 2, 3], [1, 2, 0, 3], [1, 2, 3, 0]]
    ctx = Context((ContextItem("o1", "She ordered tea."),))
    with (
        LLMServer("openai", default_text="A", default_delay=0.05) as a,
        LLMServer("openai", responder=_first_option_letter_of_tea, default_delay=0.05) as b,
    ):
        panel = Panel([_chat(a, "always_a"), _chat(b, "reader")], rule="any", workers=workers)
        em = rotation_em(panel, "What did she order?", options, rotations, "tea", ctx)
        in_flight = a.max_in_flight + b.max_in_flight
    by_name = {k.split(":", 1)[0]: v for k, v in em.per_answerer.items()}
    assert by_name == {"always_a": 0.25, "reader": 1.0}
    assert em.panel == 1.0
    if workers > 1:
        assert in_flight > 2  # rotations (and members) were in flight together
    else:
        assert in_flight == 2


def test_gate_verdicts_are_the_same_serial_and_concurrent(smm_release) -> None:  # type: ignore[no-untyped-def]
    """Every gate over the shipped smm run's candidates, 1 worker vs 8: identical verdicts, same order."""
    from mnemoforge.pipeline import load_observations, load_questions, load_world
    from mnemoforge.store.layout import RunLayout
    from mnemoforge.theme_io import load_theme
    from mnemoforge.validators.gate_runner import run_all_gates
    from mnemoforge.validators.gates import GateContext

    run = RunLayout(smm_release.run_dir)
    qs, obs = load_questions(run), load_observations(run)
    spec = load_theme(run.theme).gates

    def verdicts(workers: int) -> list:
        gctx = GateContext(load_world(run), {o.id: o for o in obs}, media_root=run.root)
        return [v.model_dump(mode="json") for v in run_all_gates(qs, gctx, spec, workers=workers).verdicts]

    assert verdicts(1) == verdicts(8)
