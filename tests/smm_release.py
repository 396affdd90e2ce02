"""The shipped smm release read back for tests (built once per session, see conftest)."""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme

THEME_PATH = THEMES_DIR / "office_launch.yaml"
THEME = load_theme(THEME_PATH)
SPEC = THEME.smm
assert SPEC is not None


class Release:
    def __init__(self, root: Path, run_dir: Path) -> None:
        self.root, self.run_dir = root, run_dir
        self.world = World.model_validate_json((root / "data/world.json").read_text())
        self.obs = [Observation.model_validate(r) for r in read_jsonl(root / "data/smm/observations.jsonl")]
        self.by_id = {o.id: o for o in self.obs}
        self.qs = [Question.model_validate(r) for r in read_jsonl(root / "data/smm/questions.jsonl")]
        self.stats = json.loads((root / "dataset_statistics.json").read_text())
