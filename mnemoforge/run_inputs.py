"""What the build reads besides the theme: the run folder's stage outputs, the prompts and model
planners that enter cache keys, the theme's price overrides (split out of ``pipeline.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from mnemoforge import yaml_io
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.store.layout import RunLayout

if TYPE_CHECKING:
    from mnemoforge.family import Family
    from mnemoforge.pipeline import BuildContext


def model_plan_hash(theme: Theme, family: Family) -> str:
    """The model planners' code and prompts, for the cache keys of a build with ``text.plan`` or
    ``text.plan_shots`` (``Family.model_plan_inputs``; an offline build's keys do not carry it)."""
    return content_hash(*family.model_plan_inputs(theme))


def production_prices(ctx: BuildContext) -> dict | None:
    """The theme's ``prices:`` overrides as a mapping (a path is read, relative to the theme file)."""
    from mnemoforge.backends.prices import PriceTable

    raw = ctx.theme.prices
    if raw is None:
        return None
    if isinstance(raw, str):
        path = Path(raw) if Path(raw).is_absolute() else Path(ctx.theme_path).parent / raw
        PriceTable.load(path)  # one clear error naming the file and field

        return yaml_io.safe_load(path.read_text())
    PriceTable.from_mapping(raw, "prices")
    return raw


def load_world(run: RunLayout) -> World:
    return World.model_validate_json(run.world.read_text())


def load_observations(run: RunLayout) -> list[Observation]:
    return [Observation.model_validate(r) for r in read_jsonl(run.observations)]


def load_questions(run: RunLayout) -> list[Question]:
    return [Question.model_validate(r) for r in read_jsonl(run.candidates)]


def load_verdicts(run: RunLayout) -> list[Verdict]:
    return [Verdict.model_validate(r) for r in read_jsonl(run.verdicts)]


def shortfall_path(run: RunLayout) -> Path:
    return run.root / "questions" / "shortfall.json"


def paraphrase_with_model(theme: Theme, world: World, questions: list[Question]) -> list[Question]:
    from mnemoforge.backends.text.registry import make_text_backend
    from mnemoforge.generators.questions.paraphrase import paraphrase
    from mnemoforge.validators.prompts import load_prompt

    assert theme.text.backend is not None
    folder = Path(theme.gates.prompts_dir) if theme.gates.prompts_dir else None
    return paraphrase(
        questions, world, make_text_backend(theme.text.backend), load_prompt(theme.text.prompt, folder)
    )


def prompts_hash(theme: Theme) -> str:
    from mnemoforge.validators.prompts import PROMPTS_DIR

    folder = Path(theme.gates.prompts_dir) if theme.gates.prompts_dir else PROMPTS_DIR
    return content_hash(*[(p.name, p.read_bytes().hex()) for p in sorted(folder.glob("*.txt"))])


def lexicon_hash() -> str:
    """The shipped general-English word lists (``assets/lexicon/*.yaml``: relation words, generic
    dialogue wordings): data the generators read like code, so part of every stage's key."""
    from mnemoforge.theme_io import ASSETS

    files = sorted((ASSETS / "lexicon").glob("*.yaml"))
    return content_hash(*[(p.name, p.read_bytes().hex()) for p in files])


class RunStateError(RuntimeError):
    """A run folder cannot be frozen as asked (unfinished, or built by other code)."""


def load_run_meta(run_dir: Path) -> dict:
    meta_path = Path(run_dir) / "run.json"
    if not meta_path.is_file():
        raise RunStateError(f"{run_dir}: not a run folder (no run.json)")
    return json.loads(meta_path.read_text())
