"""A commented starter theme (``mnemoforge theme new NAME``) that builds as is.

Its comments are the schema's field descriptions (``Field(description=...)`` in
``mnemoforge/schemas/``, read through :mod:`mnemoforge.schema_docs`), the same text as the
theme reference of the documentation, so the starter can never contradict the reference or the
loader: each key is commented the first time its field appears.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from mnemoforge import registry, yaml_io
from mnemoforge.schema_docs import field_comment, resolve
from mnemoforge.schemas.theme import Theme

HEADER = """\
# {title} — a starter theme written by `mnemoforge theme new{flag}`.
# Edit freely; `mnemoforge theme check {name}.yaml` validates it, `mnemoforge build {name}.yaml` builds it.
# Ids are lower_snake_case; colours are '#rrggbb'. Each comment is its field's description in the
# schema; the docs' theme reference (Reference > Theme) lists every field with its type, default and limits.
# Optional: `calendar: {{country: PT, latitude: 38.7}}` adds a country's holidays and weekend, and
# seasons and daylight at a latitude (docs: Concepts > Calendar); without it no holiday is invented.
"""

# the album starter's values; its comments are added by ``annotate``
STARTER = """\
name: {name}
title: "{title}"
description: A small album of three friends over one season.
version: 0.1.0
license: cc-by-4.0
family: icm
protagonist: ana
start: 2025-06-01
end: 2025-09-01
seed: 1

cast:
  - id: ana
    name: Ana
    role: teacher
    gender: female
    age: 31
    appearance:
      face_shape: oval
      skin_tone: "#e8b98f"
      hair_style: long
      hair_color: "#3b2314"
      eye_color: "#3a2a1a"
      accessories: [earrings]
      signature_outfit: {{id: red_top, label: red top, top_style: tshirt, top_color: "#c0392b", bottom_color: "#2c3e50"}}
      wardrobe:
        - {{id: blue_dress, label: blue dress, top_style: dress, top_color: "#2e86c1", bottom_color: "#2e86c1"}}
    voice: {{voice: en-us, variant: f2, pitch: 70, rate: 165}}
    signature_object: red_kite
  - id: ben
    name: Ben
    role: cyclist
    gender: male
    age: 34
    appearance:
      face_shape: square
      skin_tone: "#9c6b43"
      hair_style: buzz
      hair_color: "#111111"
      eye_color: "#20140c"
      facial_hair: beard
      build: broad
      signature_outfit: {{id: green_jacket, label: green jacket, top_style: jacket, top_color: "#1e8449", bottom_color: "#222222"}}
    voice: {{voice: en-us, variant: m7, pitch: 20, rate: 140}}
  - id: chloe
    name: Chloe
    role: baker
    gender: female
    age: 45
    appearance:
      face_shape: round
      skin_tone: "#f3d2b3"
      hair_style: bob
      hair_color: "#b5651d"
      eye_color: "#2e6b3a"
      accessories: [glasses]
      signature_outfit: {{id: yellow_sweater, label: yellow sweater, top_style: sweater, top_color: "#f1c40f", bottom_color: "#5d4037"}}
    voice: {{voice: en, variant: f4, pitch: 45, rate: 185}}

relations:
  - {{a: ana, b: ben, kind: friend, a_calls_b: friend}}
  - {{a: ana, b: chloe, kind: sibling, a_calls_b: sister}}

places:
  - {{id: riverside, name: the riverside, kind: outdoor, indoor: false, sign: RIVER WALK}}
  - {{id: bakery, name: Sunny Bakery, kind: shop, indoor: true, sign: SUNNY BAKERY}}
  - {{id: flat, name: Ana's flat, kind: home, indoor: true}}

objects:
  - {{id: red_kite, name: red kite, owner: ana, color: "#e74c3c", label: ANA}}

activities:
  - id: picnic
    verb: had a picnic
    noun: picnic
    places: [riverside]
    min_people: 2
    max_people: 3
    lines: ["{{other}}, pass the lemonade!", "What a view from here."]
  - id: baking
    verb: baked bread
    noun: baking afternoon
    places: [bakery, flat]
    min_people: 2
    max_people: 3
    lines: ["{{other}}, knead it a bit longer.", "This {{noun}} smells wonderful."]

album:
  clips: 10
  shots_per_clip: [1, 2]
  shot_durations: [4, 6, 8]
  width: 640
  height: 360
  fps: 12

questions:
  total: 15
"""



KEY_RE = re.compile(r"^(?P<indent>\s*)(?P<dash>- )?(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?=\s|$)")
COMMENT_COLUMN = 30
WIDTH = 110


def key_paths(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """(line index, key path) of every block-style key in ``text`` (list items are walked
    through, so ``cast[0].appearance.face_shape`` is ``("cast", "appearance", "face_shape")``).
    Keys inside flow mappings (``{a: 1}``) are not listed."""
    out: list[tuple[int, tuple[str, ...]]] = []
    stack: list[tuple[int, str]] = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = KEY_RE.match(line)
        if m is None:
            continue
        column = len(m.group("indent")) + (2 if m.group("dash") else 0)
        while stack and stack[-1][0] >= column:
            stack.pop()
        stack.append((column, m.group("key")))
        out.append((i, tuple(k for _, k in stack)))
    return out


def strip_comments(text: str) -> str:
    """``text`` without its comment lines and trailing comments (quoted ``#`` kept)."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        out.append(_code_part(line).rstrip())
    stripped = "\n".join(out) + "\n"
    if yaml_io.safe_load(stripped) != yaml_io.safe_load(text):
        raise ValueError("stripping comments changed the theme's data")
    return stripped


def _code_part(line: str) -> str:
    """The line up to a comment: a ``#`` after whitespace, outside a quoted scalar (a quote opens
    one only where a scalar starts, so the apostrophe of ``Ana's flat`` is plain text)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and not (quote == '"' and line[i - 1] == "\\"):
                quote = ""
        elif ch in "'\"" and (not line[:i].strip() or line[:i].rstrip()[-1] in ":-[{,"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def annotate(text: str) -> str:
    """``text`` with each key commented by its field's description, the first time the field
    appears: after the value where it fits in ``WIDTH`` columns, else on the lines above."""
    lines = text.splitlines()
    inline: dict[int, str] = {}
    above: dict[int, list[str]] = {}
    seen: set[tuple[str, ...]] = set()
    for i, path in key_paths(text):
        if path in seen:
            continue
        seen.add(path)
        info = resolve(Theme, path)
        comment = field_comment(info) if info is not None else ""
        if not comment:
            continue
        line = lines[i]
        padded = line.ljust(COMMENT_COLUMN - 1) + " "
        if len(padded) + 2 + len(comment) <= WIDTH:
            inline[i] = f"{padded}# {comment}"
        else:
            indent = " " * (len(line) - len(line.lstrip()))
            width = WIDTH - len(indent) - 2
            above[i] = [f"{indent}# {part}" for part in textwrap.wrap(comment, width)]
    out: list[str] = []
    for i, line in enumerate(lines):
        out += above.get(i, [])
        out.append(inline.get(i, line))
    return "\n".join(out) + "\n"


STARTERS = Path(__file__).resolve().parent.parent / "assets" / "starters"


def starter_source(family: str) -> Path | None:
    """The theme ``theme new --family FAMILY`` starts from: the family's own starter
    (``assets/starters/<family>.yaml``, e.g. memeye's, which declares its drawables instead of
    opting into a scene pack), else its shipped example."""
    own = STARTERS / f"{family}.yaml"
    return own if own.is_file() else example_theme(family)


def example_theme(family: str) -> Path | None:
    """The shipped, commented theme a family starts from (``Family.example_theme``); None for a
    family without one."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.theme_io import DEFAULT_THEME

    example = get_family(family).example_theme
    return None if example is None else DEFAULT_THEME.parent / example


def starter_theme(name: str, family: str = registry.DEFAULT_FAMILY) -> str:
    """A theme that builds as is, commented from the schema: the album starter (the default
    family's), or a family's shipped example renamed."""
    if not re.match(r"^[a-z0-9][a-z0-9_-]*$", name):
        raise ValueError(f"theme name {name!r}: use lowercase letters, digits, '-' and '_'")
    title = name.replace("_", " ").replace("-", " ").title()
    if family == registry.DEFAULT_FAMILY:
        body = STARTER.format(name=name, title=title)
        return HEADER.format(title=title, name=name, flag="") + annotate(body)
    from mnemoforge.generators.families import family_names

    example = starter_source(family) if family in family_names() else None
    if example is None:
        starters = [registry.DEFAULT_FAMILY, *(f for f in family_names() if example_theme(f) is not None)]
        raise ValueError(f"family {family!r}: one of {', '.join(dict.fromkeys(starters))}")
    text = strip_comments(example.read_text(encoding="utf-8"))
    text, n = re.subn(r"(?m)^name: .*$", f"name: {name}", text, count=1)
    text = re.sub(r"(?m)^title: .*$", f'title: "{title}"', text, count=1)
    if n != 1:
        raise ValueError(f"{example.name}: no top-level name to replace")
    # a new domain starts without the example's content pack: its background talk and filler are
    # composed from its own cast, places, objects and sources until it names a pack of its own
    text = re.sub(r"(?m)^(\s+pack:) \S+$", r"\1 null", text, count=1)
    return HEADER.format(title=title, name=name, flag=f" --family {family}") + annotate(text)
