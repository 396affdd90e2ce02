"""What M3-Agent's scripts need beside the M3-Bench data, so they run on an export with no manual step.

Checked against ByteDance-Seed/m3-agent at commit 0e3e41939bd8a0b66d756e7b7eb8d5fe9992da5c, run
from the checkout root as its README says:

* folders it opens files in without creating them: ``data/memory_graphs/<name>/``
  (``m3_agent/memorization_memory_graphs.py`` pickles the graph to ``mem_path``) and
  ``data/results/`` (``m3_agent/control.py`` writes ``data/results/<name>.jsonl``); also
  ``data/intermediate_outputs/<name>/<name>/`` (where the per-clip face and voice files go) and
  ``logs/`` (``mmagent/__init__.py`` logs to ``<log_dir>/mmagent.log`` when ``train`` is false);
* ``configs/api_config.json``: ``control.py`` reads ``config["gpt-4o-2024-11-20"]`` fields
  ``azure_endpoint``, ``api_version`` and ``api_key`` at import, and ``mmagent/utils/chat_api.py``
  builds one Azure client per entry from the same fields (``retrieve.py`` calls
  ``gemini-1.5-pro-002`` and ``text-embedding-3-large`` through them). The checkout's own file has
  ``base_url``/``api_key`` only, so ``control.py`` stops on a KeyError before any question.

The export writes an api_config template with every field empty (never a key) when the checkout
has none, or has one without any value filled in (its own fields are kept, the missing ones
added). A file with a value filled in is the user's: it is left as it is, and a field it lacks is
one warning line.
"""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.exporters.peers.common import readable
from mnemoforge.store.atomic import write_text

API_CONFIG = "configs/api_config.json"
API_MODELS = ("gpt-4o-2024-11-20", "gemini-1.5-pro-002", "text-embedding-3-large")
"""The entries M3-Agent's code looks up by name."""
API_FIELDS = ("azure_endpoint", "api_version", "api_key")
"""What it reads of each entry (``openai.AzureOpenAI(azure_endpoint=, api_version=, api_key=)``)."""


def folders(name: str) -> list[str]:
    """Checkout-relative folders M3-Agent writes into without creating them (or logs into)."""
    return [
        f"data/memory_graphs/{name}",
        f"data/intermediate_outputs/{name}/{name}",
        "data/results",
        "logs",
    ]


def make_folders(out: Path, name: str) -> list[str]:
    """Create :func:`folders` under ``out`` (kept if present); returns them."""
    made = folders(name)
    for rel in made:
        (out / rel).mkdir(parents=True, exist_ok=True)
    return made


def _filled(value: object) -> bool:
    if isinstance(value, dict):
        return any(_filled(v) for v in value.values())
    return value not in ("", None)


def missing_fields(config: dict) -> list[str]:
    """``model.field`` for each field M3-Agent reads that ``config`` lacks."""
    out = []
    for model in API_MODELS:
        entry = config.get(model)
        out += [f"{model}.{f}" for f in API_FIELDS if not isinstance(entry, dict) or f not in entry]
    return out


def template(existing: dict | None = None) -> dict:
    """The api_config with every field M3-Agent reads, empty; an existing blank file's entries and
    fields are kept (its models first, in its order)."""
    existing = existing or {}
    models = [*existing, *(m for m in API_MODELS if m not in existing)]
    out = {}
    for model in models:
        entry = existing.get(model)
        entry = entry if isinstance(entry, dict) else {}
        out[model] = {**entry, **{f: entry.get(f, "") for f in API_FIELDS}}
    return out


def write_api_config(out: Path) -> tuple[dict, str | None]:
    """Write, complete or keep ``configs/api_config.json``; returns what the marker records of it
    (its path, whether it has every field M3-Agent reads, whether a value is filled in: the same
    on a re-export) and a warning or None."""
    path = out / API_CONFIG
    existing = None
    if path.is_file():
        try:
            existing = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            existing = e
        if not isinstance(existing, dict):
            note = {"path": API_CONFIG, "complete": False, "filled": None}
            return note, f"{path}: not a JSON object; M3-Agent's control.py cannot read it"
        lacking = missing_fields(existing)
        if lacking and _filled(existing):
            note = {"path": API_CONFIG, "complete": False, "filled": True}
            return note, f"{path}: lacks {', '.join(lacking)}, which M3-Agent's code reads; add them"
        if not lacking:
            return {"path": API_CONFIG, "complete": True, "filled": _filled(existing)}, None
    readable(write_text(path, json.dumps(template(existing), indent=4) + "\n"))
    return {"path": API_CONFIG, "complete": True, "filled": False}, None
