"""The fixed run-folder layout under ``outputs/`` (tests assert it; see docs/releases.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mnemoforge.hashing import content_hash, short

STAGES = ("plan", "episodes", "render", "questions", "gates", "freeze")


@dataclass(frozen=True)
class OutputsLayout:
    root: Path

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    @property
    def catalog(self) -> Path:
        return self.root / "catalog.duckdb"

    @property
    def prefect_results(self) -> Path:
        return self.root / ".prefect" / "results"

    def run(self, run_id: str) -> RunLayout:
        return RunLayout(self.runs / run_id)

    def release(self, name: str, version: str) -> Path:
        return self.releases / name / version


def make_run_id(theme_name: str, theme_sha: str, seed: int) -> str:
    """Runs are named by what determines them: theme content, seed and code version (with the
    implementation variant of this install, ``implementation.code_version``)."""
    from mnemoforge.implementation import code_version

    return f"{theme_name}-s{seed}-{short(content_hash(theme_sha, seed, code_version()), 10)}"


@dataclass(frozen=True)
class RunLayout:
    root: Path

    run_json = property(lambda self: self.root / "run.json")
    theme = property(lambda self: self.root / "theme.yaml")
    stages = property(lambda self: self.root / "stages")
    world = property(lambda self: self.root / "world" / "world.json")
    clips = property(lambda self: self.root / "episodes" / "clips.jsonl")
    observations = property(lambda self: self.root / "episodes" / "observations.jsonl")
    captions = property(lambda self: self.root / "episodes" / "captions.jsonl")
    media = property(lambda self: self.root / "media")
    media_index = property(lambda self: self.root / "media" / "index.jsonl")
    voice_check = property(lambda self: self.root / "media" / "voice_check.json")
    candidates = property(lambda self: self.root / "questions" / "candidates.jsonl")
    verdicts = property(lambda self: self.root / "gates" / "verdicts.jsonl")
    funnel = property(lambda self: self.root / "gates" / "funnel.json")
    gates_cache = property(lambda self: self.root / "gates" / "cache")  # verdicts by input hash

    @property
    def run_id(self) -> str:
        return self.root.name

    def marker(self, stage: str) -> Path:
        return self.stages / f"{stage}.json"
