"""Asking for more items than a theme supports: one warning line per category, listed by the card."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app

from .conftest import small_theme_data


def test_shortfall_is_one_warning_line_per_category_and_in_the_card(tmp_path: Path) -> None:
    data = small_theme_data(clips=3)
    data["questions"]["total"] = 5_000  # the most a theme may ask (schemas/limits.py): far past 3 clips
    theme = tmp_path / "greedy.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    r = CliRunner().invoke(
        app,
        [
            "build",
            str(theme),
            "--outputs",
            str(tmp_path / "out"),
            "--orchestrator",
            "local",
            "--workers",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    release = Path(r.output.strip().splitlines()[-1])
    funnel = json.loads((release / "gates/funnel.json").read_text())
    short = {s["category"]: s for s in funnel["shortfall"]}
    assert set(short) == {"identity_recall", "cross_episode_retrieval", "profile_inference"}
    lines = [x for x in r.output.splitlines() if x.startswith("warning: shortfall: ")]
    assert len(lines) == 3, r.output  # one line per category, each with its reason
    for cat, s in short.items():
        assert s["produced"] < s["requested"] and "the World supports only" in s["reason"]
        (line,) = [x for x in lines if x.startswith(f"warning: shortfall: {cat}: ")]
        assert f"asked for {s['requested']}, got {s['produced']}" in line
    card = (release / "README.md").read_text()
    assert "**Shortfall.**" in card and all(f"| {c} | {s['requested']} |" in card for c, s in short.items())


def test_a_category_the_gates_thin_out_is_short_with_the_gates_that_did_it() -> None:
    from types import SimpleNamespace

    from mnemoforge.generators.families import get_family
    from mnemoforge.generators.shortfall import after_gates, warning_lines
    from mnemoforge.schemas.theme import Theme
    from mnemoforge.schemas.verdicts import Verdict

    theme = Theme.model_validate(small_theme_data())
    want = theme.questions.counts()
    qs = [SimpleNamespace(id=f"r{i}", category="identity_recall") for i in range(want["identity_recall"] + 2)]
    qs += [SimpleNamespace(id=f"p{i}", category="profile_inference") for i in range(3)]

    def v(item: str, gate: str, keep: bool) -> Verdict:
        return Verdict(item=item, gate=gate, gate_version="1", keep=keep, reason="x")

    verdicts = [v("p0", "text_only_clue", False), v("p1", "text_only_clue", False), v("p2", "oracle", True)]
    verdicts += [v("r0", "category_quota", False)] + [v(q.id, "oracle", True) for q in qs[1:]]
    before = [
        {
            "category": "cross_episode_retrieval",
            "requested": 9,
            "produced": 0,
            "reason": "few",
            "family": "icm",
        }
    ]
    short = {s["category"]: s for s in after_gates(theme, get_family(theme.family), qs, verdicts, before)}  # type: ignore[arg-type]
    assert short["cross_episode_retrieval"] == before[0]  # the candidate shortfall is said once, as it was
    p = short["profile_inference"]
    assert p["produced"] == 1 and p["requested"] == want["profile_inference"]
    assert p["reason"] == "the gates kept 1 of 3 candidates (rejected most by text_only_clue 2)"
    assert "identity_recall" not in short  # recall kept all it asked for (one survivor left as surplus)
    lines = warning_lines(list(short.values()))
    assert len(lines) == 2 and all(line.startswith("shortfall: ") for line in lines)
