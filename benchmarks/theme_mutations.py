"""Mutation classes for themes: each takes a valid theme and breaks one field one way.

A *mutant* is (class, field path, how to write it). The classes follow what an operator does
by accident or on purpose: empty and huge strings, numbers far outside any sense, wrong types,
empty and enormous lists, unknown keys, paths that leave the theme's folder or name a device,
YAML alias bombs, a theme asking for nothing. Every leaf of the base theme gets the classes that
fit its type (lists are mutated at their first entry only, so a cast of five is not mutated
five times over), plus targeted mutants at the fields the third reliability round named.

``expect`` says what a correct build system does with the mutant:

- ``reject``: exit 2 within a second, one line naming the file and the field, nothing written;
- ``either``: a clean rejection as above, or a build that succeeds with a non-empty release.

Used by ``benchmarks/faults.py`` (the fault table) and ``tests/test_theme_limits.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HUGE_TEXT = "x" * (1 << 20)  # a 1 MB string
LONG_LIST = 100_000
HUGE_NUMBER = 10**9

Writer = Callable[[Path], Path]  # writes the mutated theme into a folder, returns its path


@dataclass(frozen=True)
class Mutant:
    cls: str
    family: str
    path: str
    expect: str  # "reject" | "either"
    write: Writer

    @property
    def id(self) -> str:
        return f"{self.family}:{self.cls}:{self.path}"


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """libyaml's emitter (100k-entry lists in a second) that spells every entry out: a list
    holding one entry many times over is written as that many entries, not as YAML aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 30)


def _writer(data: Any, lazy: bool = False) -> Writer:
    """Writes ``data`` as YAML. ``lazy``: it holds one entry many times over (a 100k-entry list),
    written in YAML's JSON form, which the C JSON encoder writes in well under a second."""

    def write(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "theme.yaml"
        path.write_text(json.dumps(data) if lazy else _dump(data), encoding="utf-8")
        return path

    return write


def _raw_writer(text: str) -> Writer:
    def write(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "theme.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def _get(data: Any, path: list[str | int]) -> Any:
    node = data
    for k in path:
        node = node[k]
    return node


def _with(data: dict, path: list[str | int], value: Any) -> dict:
    out = copy.deepcopy(data)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return out


def _leaves(node: Any, path: list[str | int]) -> Iterator[tuple[list[str | int], Any]]:
    """Every node (mappings, lists and scalars) with its path; lists contribute their first entry."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, [*path, k])
    elif isinstance(node, list) and node:
        yield from _leaves(node[0], [*path, 0])


def _dotted(path: list[str | int]) -> str:
    return ".".join(map(str, path)) or "<root>"


# fields where a billion is a sensible value (a seed is any 63-bit number)
HUGE_OK = {"seed"}


def _scalar_mutants(value: Any, last: str) -> list[tuple[str, Any, str]]:
    """(class, new value, expect) for one scalar leaf."""
    if isinstance(value, bool):
        return [("wrong_type", "maybe", "reject")]
    if isinstance(value, int):
        return [
            ("negative", -1, "either"),
            ("zero", 0, "either"),
            ("huge_number", HUGE_NUMBER, "either" if last in HUGE_OK else "reject"),
            ("wrong_type", "many", "reject"),  # not 2.5: an integer in the file may fill a float field
        ]
    if isinstance(value, float):
        return [
            ("negative", -1.0, "either"),
            ("zero", 0.0, "either"),
            ("huge_number", 1e9, "reject"),
            ("wrong_type", "many", "reject"),
        ]
    if isinstance(value, str):
        return [
            ("empty_string", "", "either"),
            ("huge_string", HUGE_TEXT, "reject"),
            ("control_chars", value[:1] + "\x00\x1b[2J\n" + value[1:], "either"),
            ("wrong_type", [value], "reject"),
        ]
    if value is None:
        return [("wrong_type", [1, 2], "reject")]
    return []


def structural_mutants(family: str, base: dict) -> list[Mutant]:
    """The classes that fit each node's type, at every node of ``base``."""
    out: list[Mutant] = []
    for path, value in _leaves(base, []):
        if not path:
            continue
        dotted = _dotted(path)
        last = str(path[-1])
        if isinstance(value, dict):
            out.append(Mutant("empty_mapping", family, dotted, "either", _writer(_with(base, path, {}))))
            out.append(
                Mutant(
                    "unknown_key", family, dotted, "reject",
                    _writer(_with(base, path, {**value, "bogus_key": 1})),
                )
            )  # fmt: skip
            out.append(Mutant("wrong_type", family, dotted, "reject", _writer(_with(base, path, "text"))))
        elif isinstance(value, list):
            out.append(Mutant("empty_list", family, dotted, "either", _writer(_with(base, path, []))))
            if value:
                out.append(
                    Mutant(
                        "long_list", family, dotted, "reject",
                        _writer(_with(base, path, [value[0]] * LONG_LIST), lazy=True),
                    )
                )  # fmt: skip
                out.append(
                    Mutant(
                        "duplicate_entry", family, dotted, "either",
                        _writer(_with(base, path, [*value, copy.deepcopy(value[0])])),
                    )
                )  # fmt: skip
            out.append(Mutant("wrong_type", family, dotted, "reject", _writer(_with(base, path, "text"))))
        else:
            for cls, new, expect in _scalar_mutants(value, last):
                out.append(Mutant(cls, family, dotted, expect, _writer(_with(base, path, new))))
    return out


def _set(base: dict, dotted: str, value: Any) -> dict:
    out = copy.deepcopy(base)
    node: Any = out
    keys: list[str | int] = [int(k) if k.isdigit() else k for k in dotted.split(".")]
    for k in keys[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(k, {})
        else:
            node = node[k]
    node[keys[-1]] = value
    return out


def _has(base: dict, dotted: str) -> bool:
    node: Any = base
    for k in dotted.split("."):
        key: str | int = int(k) if k.isdigit() else k
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return False
    return True


def targeted_mutants(family: str, base: dict) -> list[Mutant]:
    """The round's named faults: hangs, path escapes, devices, bombs, a theme asking for nothing."""
    out: list[Mutant] = []

    def add(cls: str, path: str, data: dict, expect: str = "reject") -> None:
        out.append(Mutant(cls, family, path, expect, _writer(data)))

    add("huge_string", "cast.0.name", _set(base, "cast.0.name", "A" + "n" * (1 << 20)))
    add("long_list", "cast.0.aliases", _set(base, "cast.0.aliases", [f"Alias {i}" for i in range(LONG_LIST)]))
    add("path_escape", "gates.prompts_dir", _set(base, "gates.prompts_dir", "../../"))
    add("path_escape", "gates.prompts_dir", _set(base, "gates.prompts_dir", "/etc"))
    add("dev_zero", "prices", _set(base, "prices", "/dev/zero"))
    add("path_escape", "prices", _set(base, "prices", "../../../../etc/passwd"))
    add("dev_zero", "gates.prompts_dir", _set(base, "gates.prompts_dir", "/dev/zero"))
    coqui = _set(base, "cast.0.voice", {"engine": "coqui", "reference_wav": "/dev/zero"})
    add("dev_zero", "cast.0.voice.reference_wav", coqui)
    add(
        "path_escape",
        "cast.0.voice.reference_wav",
        _set(base, "cast.0.voice", {"engine": "coqui", "reference_wav": "../../../../etc/passwd"}),
    )
    add(
        "dev_zero",
        "render.image_model",
        _set(base, "render", {"image": "diffusers", "image_model": "/dev/zero"}),
    )
    add("huge_span", "start", _set(_set(base, "start", "0001-01-01"), "end", "9999-12-31"))
    if family == "icm":
        add("zero_questions", "questions.total", _set(base, "questions.total", 0))
        add("huge_number", "questions.total", _set(base, "questions.total", HUGE_NUMBER))
        add("huge_number", "album.clips", _set(base, "album.clips", HUGE_NUMBER))
    if family == "smm":
        zero = {t: 0 for t in ("single_hop", "multi_hop", "conflict_resolution", "preference",
                               "function_calling")}  # fmt: skip
        add("zero_questions", "smm.tasks", _set(base, "smm.tasks", zero))
        add("huge_number", "smm.rounds_per_day", _set(base, "smm.rounds_per_day", 1e9))
        add("huge_number", "smm.conflict_gap", _set(base, "smm.conflict_gap", HUGE_NUMBER))
        add("huge_number", "smm.update_days", _set(base, "smm.update_days", [1, HUGE_NUMBER]))
    if family == "memeye":
        # per_cell 0 asks for nothing only where no per-cell target overrides it
        add("zero_questions", "memeye.per_cell", _set(_set(base, "memeye.per_cell", 0), "memeye.targets", {}))
        if _has(base, "memeye.targets"):
            zero = {k: 0 for k in base["memeye"]["targets"]}
            nothing = _set(_set(base, "memeye.targets", zero), "memeye.per_cell", 0)
            add("zero_questions", "memeye.targets", nothing)
    # YAML: an alias bomb (a few hundred bytes that expand to 10^9 nodes), and a 64 MB file
    bomb = "\n".join(
        [_dump(base).rstrip(), "bomb_0: &b0 [x, x, x, x, x, x, x, x, x, x]"]
        + [f"bomb_{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 10)}]" for i in range(1, 9)]
    )
    out.append(Mutant("yaml_bomb", family, "<root>", "reject", _raw_writer(bomb + "\n")))
    padding = "# " + "p" * 1000 + "\n"
    huge_file = _dump(base) + padding * (64 << 10)
    out.append(Mutant("huge_file", family, "<file>", "reject", _raw_writer(huge_file)))
    return out


def all_mutants(family: str, base: dict) -> list[Mutant]:
    return targeted_mutants(family, base) + structural_mutants(family, base)
