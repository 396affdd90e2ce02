"""Pydantic records for every stage; their JSON Schemas ship in each release."""

from mnemoforge.schemas.episodes import Clip, DialogueLine, Shot
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.release import FileEntry, ReleaseManifest
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import Event, Fact, Person, World

EXPORTED = {
    "theme": Theme,
    "world": World,
    "person": Person,
    "event": Event,
    "fact": Fact,
    "clip": Clip,
    "shot": Shot,
    "observation": Observation,
    "question": Question,
    "verdict": Verdict,
    "release_manifest": ReleaseManifest,
}

__all__ = [
    "EXPORTED",
    "Channel",
    "Clip",
    "DialogueLine",
    "Event",
    "Expression",
    "Fact",
    "FileEntry",
    "Lineage",
    "Observation",
    "Person",
    "Program",
    "Question",
    "ReleaseManifest",
    "Shot",
    "Theme",
    "Verdict",
    "World",
]
