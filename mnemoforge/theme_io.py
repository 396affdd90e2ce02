"""Load and check theme files; user mistakes become one clear error naming file and field."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mnemoforge import yaml_io
from mnemoforge.hashing import sha256_bytes
from mnemoforge.schema_docs import error_path
from mnemoforge.schemas.theme import Theme

ASSETS = Path(__file__).resolve().parent.parent / "assets"
THEMES_DIR = ASSETS / "themes"
DEFAULT_THEME = THEMES_DIR / "life_album.yaml"




class ThemeError(ValueError):
    """A theme file is unreadable or invalid; ``problems`` lists (field path, message)."""

    def __init__(self, path: Path, problems: list[tuple[str, str]]) -> None:
        self.path = path
        self.problems = [(one_line(f, 120), one_line(m)) for f, m in problems]
        if len(self.problems) == 1:  # one problem: one line naming the file and the field
            field, msg = self.problems[0]
            super().__init__(f"{path}: invalid theme: {field}: {msg}")
            return
        lines = [f"{path}: invalid theme ({len(self.problems)} problems)"]
        lines += [f"  - {field}: {msg}" for field, msg in self.problems]
        super().__init__("\n".join(lines))


MAX_MESSAGE = 300


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` on one line, cut to ``limit`` characters (a message never echoes a 1 MB value)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(value: Any, limit: int = 60) -> str:
    """A value as a message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(err: dict[str, Any]) -> tuple[str, str]:
    loc = error_path(Theme, err["loc"])
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
        # model-level validators put the field path at the front of the message
        head, sep, rest = msg.partition(": ")
        if sep and " " not in head:
            loc = f"{loc}.{head}" if loc else head
            msg = rest
    typ = err.get("type", "")
    if typ == "missing":
        msg = "required field is missing"
    elif typ == "extra_forbidden":
        msg = "unknown field (check the spelling; every field is in the docs' theme reference)"
    elif "input" in err and typ not in ("value_error",):
        got = err["input"]
        if not isinstance(got, dict | list):
            msg = f"{msg} (got {shown(got)})"
    return loc or "<root>", msg


def parse_theme(data: Any, path: Path, base: Path | None = None) -> Theme:
    """The theme of ``data`` read from ``path``; relative paths start at ``base`` (its folder)."""
    if not isinstance(data, dict):
        raise ThemeError(path, [("<root>", f"expected a mapping of theme fields, got {type(data).__name__}")])
    try:
        theme = Theme.model_validate(data)
    except ValidationError as e:
        raise ThemeError(path, [_describe(err) for err in e.errors()]) from None
    problems = voice_problems(theme, path.parent if base is None else base)
    if problems:
        raise ThemeError(path, problems)
    return theme


def voice_problems(theme: Theme, base: Path) -> list[tuple[str, str]]:
    """Voices the speech engines cannot produce (checked here, before anything renders)."""
    from mnemoforge.backends.speech.espeak import available_languages, available_variants

    out = []
    for i, p in enumerate(theme.cast):
        v = p.voice
        if v.engine == "espeak":
            if v.voice.lower() not in available_languages():
                out.append(
                    (f"cast.{i}.voice.voice", f"espeak has no voice {v.voice!r} (try 'en-us' or 'en')")
                )
            if v.variant and v.variant not in available_variants():
                out.append(
                    (f"cast.{i}.voice.variant", f"espeak has no variant {v.variant!r} (e.g. m1..m8, f1..f5)")
                )
        elif v.engine == "coqui" and not (v.reference_wav and (Path(base) / v.reference_wav).is_file()):
            out.append((f"cast.{i}.voice.reference_wav", "coqui voices need an existing reference clip"))
    return out


class ThemeLoader(yaml_io.SafeLoader):  # type: ignore[misc,valid-type]
    """A safe loader (libyaml's parser where PyYAML has it) that rejects duplicate keys (YAML
    silently keeps the last) and leaves dates as text for the schema to parse, so
    ``start: 2025-02-30`` is a field error, not a crash."""


def _mapping(loader: ThemeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict[object, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
        if isinstance(key, list | dict):
            continue  # unhashable keys: the default constructor reports them
        if key in seen:
            first = seen[key].start_mark.line + 1
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {first})", key_node.start_mark
            )
        seen[key] = key_node
    return loader.construct_mapping(node, deep=deep)


ThemeLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
ThemeLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)


def load_theme(path: Path | str, base: Path | None = None) -> Theme:
    """Read and validate a theme YAML file (safe loading; no code in YAML, no duplicate keys; at
    most ``MAX_THEME_BYTES``, ``MAX_YAML_NODES`` values, bounded strings and lists). Path fields
    come back absolute, relative ones taken from ``base`` (default: the file's folder)."""
    from mnemoforge.theme_paths import resolved

    path = Path(path)
    base = path.parent if base is None else base
    return resolved(parse_theme(read_theme_file(path), path, base), base)


def theme_as_written(theme_bytes: bytes) -> Theme:
    """The theme of these (already checked) bytes with its path fields as written: what a release
    records in ``config.resolved.json``."""
    return Theme.model_validate(read_theme_bytes(theme_bytes))


def read_theme_file(path: Path) -> Any:
    """The YAML data of a theme file, bounded in size and shape; ``ThemeError`` otherwise."""
    from mnemoforge.bounded_io import BoundedReadError, read_capped
    from mnemoforge.schemas.limits import MAX_THEME_BYTES

    try:
        raw = read_capped(path, MAX_THEME_BYTES, "theme file")
    except BoundedReadError as e:
        raise ThemeError(path, [("<file>", str(e).removeprefix(f"{path}: "))]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = text_line(e.object, e.start)
        raise ThemeError(
            path, [(f"line {line}", f"not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})")]
        ) from None
    try:
        data = yaml.load(text, Loader=ThemeLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<yaml>"
        raise ThemeError(path, [(where, f"not valid YAML: {getattr(e, 'problem', e)}")]) from None
    except RecursionError:
        raise ThemeError(path, [("<yaml>", "nested too deeply")]) from None
    problem = shape_problem(data)
    if problem:
        raise ThemeError(path, [problem])
    return data


def shape_problem(data: Any) -> tuple[str, str] | None:
    """The first place the raw YAML data exceeds a size limit (nodes, depth, any string or list),
    checked before the schema reads it: an alias bomb stops here after ``MAX_YAML_NODES`` steps."""
    from mnemoforge.schemas import limits as L

    budget = [L.MAX_YAML_NODES]

    def walk(node: Any, path: str, depth: int) -> tuple[str, str] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return (path or "<root>", f"more than {L.MAX_YAML_NODES} values (YAML aliases expand?)")
        if depth > L.MAX_YAML_DEPTH:
            return (path, f"nested more than {L.MAX_YAML_DEPTH} levels deep")
        if isinstance(node, str) and len(node) > L.MAX_RAW_TEXT:
            return (path, f"text of {len(node)} characters; no theme text may exceed {L.MAX_RAW_TEXT}")
        if isinstance(node, dict | list) and len(node) > L.MAX_RAW_ITEMS:
            return (path, f"{len(node)} entries; no theme list or mapping may exceed {L.MAX_RAW_ITEMS}")
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            found = walk(v, f"{path}.{k}" if path else str(k), depth + 1)
            if found:
                return found
        return None

    return walk(data, "", 0)


def text_line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def theme_sha256(path: Path | str) -> str:
    return sha256_bytes(Path(path).read_bytes())


def read_theme_bytes(data: bytes) -> Any:
    """A theme file's YAML from its bytes, read with the theme loader (no duplicate keys)."""
    return yaml.load(io.BytesIO(data), Loader=ThemeLoader)  # noqa: S506 (a SafeLoader subclass)
