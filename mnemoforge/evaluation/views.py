"""The agent view of the smm release's source-concentrated twin (``data/smm/concentrated/``).

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
