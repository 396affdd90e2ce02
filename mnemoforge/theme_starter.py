"""A commented starter theme (``mnemoforge theme new NAME``) that builds as is."""

from __future__ import annotations

import re

STARTER = """\
# {title} — a starter theme written by `mnemoforge theme new`.
# Edit freely; `mnemoforge theme check {name}.yaml` validates it, `mnemoforge build {name}.yaml` builds it.
# Ids are lower_snake_case; colours are '#rrggbb'. Every field is described in the README ("Theme schema").
name: {name}                  # release name (lowercase, digits, - and _)
title: "{title}"
description: A small album of three friends over one season.
version: 0.1.0                # release version; bump it when the theme changes
license: cc-by-4.0
family: icm                   # identity-centric video memory
protagonist: ana              # whose album it is (defaults to the first cast member)
start: 2025-06-01
end: 2025-09-01               # must be after start
seed: 1                       # default world seed (override with --seed)
# calendar: {{country: PT, latitude: 38.7}}   # optional: holidays and weekend of a country, seasons
#                                           # and daylight at a latitude (docs/calendar.md)

cast:                         # recurring people: face anchor (appearance) + voice anchor (voice)
  - id: ana
    name: Ana
    role: teacher
    gender: female
    age: 31
    appearance:
      face_shape: oval        # oval | round | square | heart | long
      skin_tone: "#e8b98f"
      hair_style: long        # short | long | bun | curly | bald | ponytail | bob | buzz
      hair_color: "#3b2314"
      eye_color: "#3a2a1a"
      accessories: [earrings] # glasses, sunglasses, earrings, hat, cap, scarf, headband, necklace
      signature_outfit: {{id: red_top, label: red top, top_style: tshirt, top_color: "#c0392b", bottom_color: "#2c3e50"}}
      wardrobe:               # up to five more outfits; shots pick one per clip
        - {{id: blue_dress, label: blue dress, top_style: dress, top_color: "#2e86c1", bottom_color: "#2e86c1"}}
    voice: {{voice: en-us, variant: f2, pitch: 70, rate: 165}}   # espeak-ng voice, variant, pitch 0-99, words/min
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

relations:                    # a, b: person ids; a_calls_b: how a refers to b in questions
  - {{a: ana, b: ben, kind: friend, a_calls_b: friend}}
  - {{a: ana, b: chloe, kind: sibling, a_calls_b: sister}}

places:                       # kind: home | outdoor | venue | work | shop | transit; sign: legible text
  - {{id: riverside, name: the riverside, kind: outdoor, indoor: false, sign: RIVER WALK}}
  - {{id: bakery, name: Sunny Bakery, kind: shop, indoor: true, sign: SUNNY BAKERY}}
  - {{id: flat, name: Ana's flat, kind: home, indoor: true}}

objects:                      # owner: a person id; label: small text printed on it
  - {{id: red_kite, name: red kite, owner: ana, color: "#e74c3c", label: ANA}}

activities:                   # event kinds on the timeline; lines: dialogue with {{other}}, {{place}}, {{noun}}, {{object}}
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
  clips: 10                   # including the calibration clip 0
  shots_per_clip: [1, 2]
  shot_durations: [4, 6, 8]   # seconds; each of 4, 6, 8
  width: 640                  # up to 1280x720; close and medium faces must be >= min_face_px (48) high
  height: 360
  fps: 12

questions:
  total: 15                   # candidates before gates, split recall : retrieval : profile as in ICM-Bench
"""


# the shipped, commented theme each non-album family starts from
FAMILY_EXAMPLES = {"smm": "office_launch.yaml", "memeye": "visual_diary.yaml"}


def starter_theme(name: str, family: str = "icm") -> str:
    """A theme that builds as is: the commented album starter, or a family's shipped example
    renamed (its comments describe every field)."""
    if not re.match(r"^[a-z0-9][a-z0-9_-]*$", name):
        raise ValueError(f"theme name {name!r}: use lowercase letters, digits, '-' and '_'")
    title = name.replace("_", " ").replace("-", " ").title()
    if family == "icm":
        return STARTER.format(name=name, title=title)
    if family not in FAMILY_EXAMPLES:
        raise ValueError(f"family {family!r}: one of icm, {', '.join(sorted(FAMILY_EXAMPLES))}")
    from mnemoforge.theme_io import DEFAULT_THEME

    text = (DEFAULT_THEME.parent / FAMILY_EXAMPLES[family]).read_text(encoding="utf-8")
    text, n = re.subn(r"(?m)^name: .*$", f"name: {name}", text, count=1)
    text = re.sub(r"(?m)^title: .*$", f'title: "{title}"', text, count=1)
    if n != 1:
        raise ValueError(f"{FAMILY_EXAMPLES[family]}: no top-level name to replace")
    # a new domain starts without the example's content pack: its background talk and filler are
    # composed from its own cast, places, objects and sources until it names a pack of its own
    text = re.sub(
        r"(?m)^(\s+)pack: (\S+)(.*)$",
        r"\1# pack: \2          # content pack (assets/packs/<name>.yaml); none: composed from this theme",
        text,
        count=1,
    )
    header = f"# {title} — a starter theme written by `mnemoforge theme new --family {family}`.\n"
    return header + text
