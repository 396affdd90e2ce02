"""The agent views ``evaluate`` reads beyond a release's own: the source-concentrated twin
(``data/<family>/concentrated/``, the family that writes one) and, through :func:`agent_view`, a
multi-family release's cross items (``evaluation/cross.py``).

Built with the same row filters as :func:`mnemoforge.exporters.views.load_agent_view`
(``agent_item``, ``agent_observation``), so the twin shows the model exactly what the
distributed release does, only with the evidence blocks moved into one hub chat.
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.evaluation.keys import EvaluationError, read_jsonl
from mnemoforge.exporters.views import AgentView, agent_item, agent_observation, load_agent_view


def concentrated_view(release: Path) -> AgentView:
    base = load_agent_view(release)
    twin = Path(release) / "data" / base.family / "concentrated"
    if not (twin / "observations.jsonl").is_file():  # a family that writes one (smm)
        raise EvaluationError(
            f"{twin}: no source-concentrated twin (method 'concentrated' needs an smm release)"
        )
    items = [agent_item(r) for r in read_jsonl(twin / "questions.jsonl")]
    obs = sorted(
        (agent_observation(r) for r in read_jsonl(twin / "observations.jsonl")),
        key=lambda o: (o["order"], o["timestamp"], o["id"]),
    )
    return AgentView(
        root=base.root, family=base.family, items=items, observations=obs, captions=base.captions
    )


def agent_view(release: Path, variant: str | None = None) -> AgentView:
    """The agent view ``evaluate`` answers from: a release's own (``load_agent_view``), or, for
    a multi-family release's root, its cross items' (``evaluation/cross.py``)."""
    from mnemoforge.evaluation.cross import cross_view
    from mnemoforge.evaluation.keys import release_family
    from mnemoforge.generators.cross_items import CROSS

    if release_family(release) != CROSS:
        return load_agent_view(release, variant)
    if variant is not None:
        raise EvaluationError("a multi-family release has no length variants (leave out --variants)")
    return cross_view(release)
