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
        self.problems = problems
        lines = [f"{path}: invalid theme ({len(problems)} problem{'s' if len(problems) != 1 else ''})"]
        lines += [f"  - {field}: {msg}" for field, msg in problems]
        super().__init__("\n".join(lines))


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
            msg = f"{msg} (got {got!r})"
    return loc or "<root>", msg


def parse_theme(data: Any, path: Path) -> Theme:
    if not isinstance(data, dict):
        raise ThemeError(path, [("<root>", f"expected a mapping of theme fields, got {type(data).__name__}")])
    try:
        theme = Theme.model_validate(data)
    except ValidationError as e:
        raise ThemeError(path, [_describe(err) for err in e.errors()]) from None
    problems = voice_problems(theme, path)
    if problems:
        raise ThemeError(path, problems)
    return theme


def voice_problems(theme: Theme, path: Path) -> list[tuple[str, str]]:
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
        elif v.engine == "coqui" and not (v.reference_wav and (path.parent / v.reference_wav).is_file()):
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


def load_theme(path: Path | str) -> Theme:
    """Read and validate a theme YAML file (safe loading; no code in YAML, no duplicate keys)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise ThemeError(path, [("<file>", f"cannot read: {e.strerror or e}")]) from None
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
    return parse_theme(data, path)


def text_line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def theme_sha256(path: Path | str) -> str:
    return sha256_bytes(Path(path).read_bytes())


def read_theme_bytes(data: bytes) -> Any:
    """A theme file's YAML from its bytes, read with the theme loader (no duplicate keys)."""
    return yaml.load(io.BytesIO(data), Loader=ThemeLoader)  # noqa: S506 (a SafeLoader subclass)
