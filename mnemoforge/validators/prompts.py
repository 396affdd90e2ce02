"""Versioned prompt templates from ``assets/prompts/``; a prompt's content hash enters every
cache key that uses it, so changing one prompt re-runs only the calls that use it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mnemoforge.hashing import sha256_bytes

PROMPTS_DIR = Path(__file__).resolve().parent.parent.parent / "assets" / "prompts"


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    template: str
    sha256: str

    def render(self, **fields: str) -> str:
        return self.template.format(**fields)


def parse_prompt(name: str, text: str) -> Prompt:
    """Leading ``#`` lines are comments (``# version: N`` sets the version); the rest is the template."""
    lines = text.splitlines()
    version = "0"
    while lines and lines[0].startswith("#"):
        head = lines.pop(0)[1:].strip()
        if head.startswith("version:"):
            version = head.split(":", 1)[1].strip()
    return Prompt(name, version, "\n".join(lines).strip() + "\n", sha256_bytes(text.encode()))


@lru_cache(maxsize=64)
def _load(path: str, mtime_ns: int) -> Prompt:
    from mnemoforge.bounded_io import BoundedReadError, read_capped

    p = Path(path)
    try:
        text = read_capped(p, MAX_PROMPT_BYTES, "prompt").decode("utf-8")
    except (BoundedReadError, UnicodeDecodeError) as e:
        raise FileNotFoundError(f"{p}: {e}") from None
    return parse_prompt(p.stem, text)


MAX_PROMPT_BYTES = 256 << 10  # a prompt template is a page of text


def load_prompt(name: str, directory: Path | None = None) -> Prompt:
    """The prompt ``NAME.txt`` of ``directory`` (default ``assets/prompts``); a name is never a path."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", str(name)):
        raise FileNotFoundError(f"{name!r}: not a prompt name (letters, digits, '_' and '-' only)")
    path = (directory or PROMPTS_DIR) / f"{name}.txt"
    if not path.is_file():
        known = sorted(p.stem for p in (directory or PROMPTS_DIR).glob("*.txt"))
        raise FileNotFoundError(f"{path}: no such prompt; known prompts: {known}")
    return _load(str(path), path.stat().st_mtime_ns)
