"""MkDocs hook: pages generated from the code at build time, so they cannot go stale.

- ``reference/theme.md``: every theme field (type, default, limits, meaning) from the pydantic
  schema the loader enforces (:mod:`mnemoforge.schema_docs`), and ``reference/pack.md`` the same
  for content packs;
- ``reference/cli.md``: every command and option from the typer app;
- ``performance.md``: the figures of ``benchmarks/results/*.json`` with the machine each was
  measured on;
- ``changelog.md``: the repository's ``CHANGELOG.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


ABSOLUTE = re.compile(r"(?<![\w.~:/])/(?:[\w.@+-]+/)+[\w.@+-]+")  # two parts or more: not /proc


def _rel(value: Any) -> str:
    """``value`` as text naming no path outside the repository: a path inside it is relative, any
    other absolute path (a result file recorded on another machine) is cut to ``…/<file name>``."""
    text = str(value).replace(str(ROOT) + "/", "")
    return ABSOLUTE.sub(lambda m: "…/" + m.group(0).rsplit("/", 1)[-1], text)


def _plain(text: str | None) -> str:
    """Rich markup off: ``[bold]x[/]`` → ``x``."""
    return re.sub(r"\[/?[a-z ]*\]", "", text or "").strip()


def _yaml_files(folder: Path) -> list[Any]:
    from mnemoforge import yaml_io

    return [yaml_io.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))]


def theme_reference() -> str:
    """Every theme field; its example is the first value the starter and shipped themes give it."""
    from mnemoforge import yaml_io
    from mnemoforge.schema_docs import examples, markdown
    from mnemoforge.schemas.theme import Theme
    from mnemoforge.theme_starter import starter_theme

    starters = [yaml_io.safe_load(starter_theme("my_theme", f)) for f in ("icm", "smm", "memeye")]
    shipped = _yaml_files(ROOT / "assets" / "themes") + _yaml_files(ROOT / "tests" / "themes")
    return markdown(Theme, "Theme reference", example=examples(Theme, starters + shipped))


def pack_reference() -> str:
    from mnemoforge.schema_docs import examples, markdown
    from mnemoforge.schemas.packs import Pack

    packs = _yaml_files(ROOT / "assets" / "packs")
    return markdown(Pack, "Content pack reference", root_name="(pack)", example=examples(Pack, packs))


def cli_reference() -> str:
    import typer

    from mnemoforge.cli import app

    root = typer.main.get_command(app)
    lines = ["# Command-line reference", "", "Generated from the `mnemoforge` command itself.", ""]

    def emit(cmd: Any, path: str) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                emit(sub, f"{path} {name}")
            return
        lines.extend([f"## `{path}`", ""])
        help_text = _plain(cmd.help)
        if help_text:
            lines.extend([help_text, ""])
        rows = []
        for p in cmd.params:
            if p.name == "help":
                continue
            is_option = p.param_type_name == "option"
            opts = ", ".join(f"`{o}`" for o in p.opts) if is_option else f"`{p.metavar or p.name}`"
            default = "" if p.default in (None, False) or p.required else _rel(p.default)
            cells = [opts, p.metavar or "", _plain(getattr(p, "help", "")), default]
            rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        if rows:
            lines.extend(["| option | value | meaning | default |", "|---|---|---|---|", *rows, ""])
        epilog = _plain(cmd.epilog)
        if epilog:
            shown = [ln.strip() for ln in epilog.splitlines()]
            examples = [ln.lstrip("$").strip() for ln in shown if ln.startswith("$")]
            if examples:
                lines.extend(["```bash", *examples, "```", ""])

    emit(root, "mnemoforge")
    return "\n".join(lines)


def _scalars(data: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(data, dict) and depth < 3:
        for k, v in data.items():
            out += _scalars(v, f"{prefix}.{k}" if prefix else str(k), depth + 1)
    elif isinstance(data, (int, float, str, bool)) and data is not None:
        text = _rel(data)
        if len(text) <= 120:
            out.append((prefix, text))
    return out


def _load(values: Any) -> str:
    return " / ".join(str(v) for v in values) if isinstance(values, list) and values else "?"


def machine_line(block: Any) -> str:
    """The ``machine`` block of a result file (``benchmarks/machine.py``) as one sentence."""
    if not isinstance(block, dict):
        return "*Machine: not recorded (measured before results carried a `machine` block).*"
    cores = block.get("cpus_usable") or block.get("cpus") or "?"
    parts = [
        block.get("cpu_model") or "CPU model not recorded",
        f"{cores} usable of {block.get('cpu_count') or block.get('cpus') or '?'} cores",
    ]
    if block.get("mem_total_gb"):
        parts.append(f"{block['mem_total_gb']} GB")
    if "loadavg_start" in block or "loadavg_end" in block:
        parts.append(f"load (1/5/15 min) {_load(block.get('loadavg_start'))} at start, "
                     f"{_load(block.get('loadavg_end'))} at end")  # fmt: skip
    elif "loadavg_at_start" in block:
        parts.append(f"load at start {_load(block['loadavg_at_start'])}")
    if block.get("python"):
        parts.append(f"Python {block['python']}")
    if block.get("platform"):
        parts.append(_rel(block["platform"]))
    if block.get("git_commit"):
        changed = block.get("mnemoforge_uncommitted_changes") or []
        more = f" + {len(changed)} changed files" if changed else ""
        parts.append(f"commit `{block['git_commit']}`{more}")
    if block.get("started_at"):
        parts.append(block["started_at"])
    note = f" ({block['note']})" if block.get("note") else ""
    return "*Machine: " + "; ".join(str(x).replace("|", "/") for x in parts) + note + ".*"


def performance() -> str:
    lines = [
        "# Performance",
        "",
        "Figures from the scripts in `benchmarks/`, as last committed under `benchmarks/results/`. "
        "Each table lists a result file's figures; the line above it says where they were measured "
        "(`benchmarks/machine.py`: CPU, cores, load average at the start and end of the run). A load "
        "above the usable cores means other processes shared the machine: those figures are indicative. "
        "Re-run a script to refresh its file (`python benchmarks/<script>.py --help`).",
        "",
    ]
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        where = data.pop("machine", None) if isinstance(data, dict) else None
        rows = _scalars(data)
        if not rows:
            continue
        lines.extend([f"## `{path.name}`", "", machine_line(where), ""])
        lines.extend(["| figure | value |", "|---|---|"])
        lines.extend(f"| `{k}` | {v.replace('|', '/')} |" for k, v in rows[:60])
        if len(rows) > 60:
            lines.append(f"| … | {len(rows) - 60} more in the file |")
        lines.append("")
    return "\n".join(lines)


def changelog() -> str:
    """``CHANGELOG.md`` of the repository as it is."""
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


PAGES = {
    "reference/theme.md": theme_reference,
    "reference/pack.md": pack_reference,
    "reference/cli.md": cli_reference,
    "performance.md": performance,
    "changelog.md": changelog,
}


def on_files(files: Files, config: Any) -> Files:
    for uri, make in PAGES.items():
        existing = files.get_file_from_path(uri)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, uri, content=make()))
    return files
