"""Do the written values of an icm release read back as the World's? An outside OCR probe.

    python benchmarks/sign_ocr.py RELEASE_DIR [RELEASE_DIR ...] [--json OUT]

icm shots write one kind of value an item reads: a place's sign (a usual-place item asks where an
activity happens, and the sign in a wide shot says which place it is). For every shot of the
release whose drawn record (``data/icm/annotations/drawn/*.json``) shows a sign, the probe crops the
sign's recorded box from the shipped still (``media/shots/<shot>.png``), just inside its frame,
reads it with RapidOCR's recogniser (offline; the ``ocr`` extra) and compares the reading (letters
and digits) with the place's ``sign`` in ``data/world.json``. memeye releases are checked by their
own gate (``memeye_legible``) at build time; see ``benchmarks/README.md``.

Prints one line per release: signs read as the World's / signs drawn, and the misreadings.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

HEIGHT = 48  # px: the recogniser's input height


def normal(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def read_sign(still: Path, box: list[int]) -> tuple[str, float]:
    """The text RapidOCR reads inside ``box`` of ``still`` (3 px inside its frame), and its score."""
    import numpy as np
    from PIL import Image
    from rapidocr_onnxruntime import RapidOCR

    with Image.open(still) as img:
        x0, y0, x1, y1 = box
        crop = img.convert("RGB").crop((x0 + 3, y0 + 3, x1 - 3, y1 - 3))
    k = HEIGHT / max(1, crop.size[1])
    crop = crop.resize((max(8, round(crop.size[0] * k)), HEIGHT), Image.BILINEAR)
    engine = read_sign.__dict__.setdefault("engine", RapidOCR())
    res, _ = engine(np.asarray(crop), use_det=False, use_cls=False, use_rec=True)
    return " ".join(t for t, _ in res or []), min((float(s) for _, s in res or []), default=0.0)


def probe(release: Path) -> dict:
    world = json.loads((release / "data/world.json").read_text(encoding="utf-8"))
    signs = {p.get("sign") for p in world.get("places", []) if p.get("sign")}
    drawn, agree, wrong = 0, 0, []
    for path in sorted((release / "data/icm/annotations/drawn").glob("*.json")):
        for shot in json.loads(path.read_text(encoding="utf-8"))["shots"]:
            sign = shot.get("sign")
            if not sign:
                continue
            drawn += 1
            got, score = read_sign(release / "media/shots" / f"{shot['shot']}.png", sign["box"])
            if sign["text"] in signs and normal(got) == normal(sign["text"]) and score >= 0.6:
                agree += 1
            else:
                seen = {"shot": shot["shot"], "sign": sign["text"], "read": got, "score": round(score, 3)}
                wrong.append(seen)
    return {"signs_drawn": drawn, "read_as_world": agree, "misread": wrong[:10]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("releases", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    result = {}
    for rel in args.releases:
        if not (rel / "data/icm/annotations/drawn").is_dir():
            continue
        got = result[f"{rel.parent.name}@{rel.name}"] = probe(rel)
        print(f"{rel.parent.name}: {got['read_as_world']}/{got['signs_drawn']} signs read as the World's")
    if args.json:
        write_result(args.json, {"releases": result}, ensure_ascii=False, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
