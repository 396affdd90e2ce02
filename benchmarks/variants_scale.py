"""Build time against material for length variants (issue 36): does it grow faster than what is added?

For each scale ``k`` the script builds one theme with its World ``k`` times larger (icm:
``album.clips``; smm: ``smm.rounds_per_day``) into a fresh outputs folder and times

1. the plain build (plan → gates → freeze), and
2. the same build again with ``--variants`` (every stage cached: the freeze that selects the
   variants, re-derives every item in each and writes their tables),

and prints, per scale, the observations (the material), the seconds, and the ratio
``(seconds_k / seconds_1) / (observations_k / observations_1)``: at or below 1, the build grows no
faster than the material added. For the variants it prints the material they add (observations over
all variants / the release's) against the freeze time they add (variants freeze / plain freeze).

    .venv/bin/python benchmarks/variants_scale.py                    # tiny icm album, k = 1 2 4
    .venv/bin/python benchmarks/variants_scale.py --theme tests/themes/ferry_crew.yaml --scales 1 2
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import write_result  # noqa: E402

NAMES = ("oracle", "s", "m", "l")


def small_icm() -> dict:
    """The test suite's tiny album (6 clips, 320x180) without profile items (whole-album evidence)."""
    from tests.conftest import small_theme_data

    data = small_theme_data(clips=6)
    data["questions"] = {
        "total": 8, "identity_recall": 4, "cross_episode_retrieval": 4, "profile_inference": 0
    }  # fmt: skip
    return data


def scaled(data: dict, k: int) -> dict:
    out = json.loads(json.dumps(data, default=str))
    if out.get("family", "icm") == "smm":
        out["smm"]["rounds_per_day"] = out["smm"].get("rounds_per_day", 2) * k
    else:
        out.setdefault("album", {})["clips"] = out.get("album", {}).get("clips", 24) * k
    out["name"] = f"{out['name']}-x{k}"
    return out


def measure(data: dict, k: int, work: Path) -> dict:
    from mnemoforge.pipeline import build

    theme = work / f"theme_x{k}.yaml"
    theme.write_text(yaml.safe_dump(scaled(data, k), sort_keys=False, allow_unicode=True))
    out = work / f"out_x{k}"
    t0 = time.perf_counter()
    plain = build(theme, outputs=out, workers=1)
    t1 = time.perf_counter()
    t_freeze = time.perf_counter()
    build(theme, outputs=out, workers=1)  # cached: the freeze alone (a no-op re-freeze of the same bytes)
    t_plain_freeze = time.perf_counter() - t_freeze
    t2 = time.perf_counter()
    res = build(theme, outputs=out, workers=1, variants=NAMES)
    t3 = time.perf_counter()
    m = json.loads((res.release_dir / "MANIFEST.json").read_text())
    p = json.loads((plain.release_dir / "MANIFEST.json").read_text())
    return {
        "scale": k,
        "observations": p["counts"]["observations"],
        "questions": m["counts"]["questions"],
        "build_s": round(t1 - t0, 3),
        "plain_freeze_s": round(t_plain_freeze, 3),
        "variants_freeze_s": round(t3 - t2, 3),
        "variants": {
            v["name"]: {"size": v["size"], "observations": v["observations"]} for v in m["variants"]
        },
        "variant_observations": sum(v["observations"] for v in m["variants"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--theme", type=Path, help="theme YAML (default: the tests' tiny icm album)")
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/variants_scale.json")
    args = ap.parse_args()
    data = yaml.safe_load(args.theme.read_text()) if args.theme else small_icm()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mf-variants-") as tmp:
        for k in args.scales:
            rows.append(measure(data, k, Path(tmp)))
            r = rows[-1]
            print(f"x{k}: {r['observations']} observations, build {r['build_s']} s, "
                  f"variants freeze {r['variants_freeze_s']} s", flush=True)  # fmt: skip
    base = rows[0]
    print("\nscale  observations  build_s  time/material  variant material  variant freeze/plain freeze")
    for r in rows:
        growth = (r["build_s"] / base["build_s"]) / (r["observations"] / base["observations"])
        r["time_per_material"] = round(growth, 3)
        r["variant_material"] = round(r["variant_observations"] / r["observations"], 3)
        r["variant_freeze_ratio"] = round(r["variants_freeze_s"] / max(r["plain_freeze_s"], 1e-3), 3)
        print(f"x{r['scale']:<5} {r['observations']:>12} {r['build_s']:>8} {growth:>14.3f} "
              f"{r['variant_material']:>17} {r['variant_freeze_ratio']:>28}")  # fmt: skip
    write_result(args.json, {"theme": str(args.theme or "tests: tiny icm"), "rows": rows})
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
