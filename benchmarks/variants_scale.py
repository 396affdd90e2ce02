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

With ``--haystacks`` it measures the per-item histories instead: it builds the shipped life_album
and office_launch themes (or the themes named) with ``oracle,s,m,l`` and prints, per variant, the
items in it, those left out (evidence above the target), the mean and range of the items' history
sizes and L / S; ``--evaluate`` adds the offline baselines' scores per variant (the exact solver
over BM25's top 10 and over the whole history), written where ``mnemoforge report`` finds them.

    .venv/bin/python benchmarks/variants_scale.py --haystacks --evaluate --outputs outputs \\
        --json /tmp/haystacks.json

``--extend K`` builds the icm themes with ``build --extend K``: the variants draw filler from K
times the album's clips, more clips of the same World rendered for them
(``mnemoforge/variant_extension.py``); it prints the items dropped (with why) and L / S per item.
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
        # the observations every item's history holds, over all variants (shared rows counted per item)
        "variant_observations": round(sum(v["observations"] * v["questions"] for v in m["variants"]), 1),
    }


SHIPPED = (ROOT / "assets/themes/life_album.yaml", ROOT / "assets/themes/office_launch.yaml")
BASELINES = (("retrieval", {"top_k": 10}), ("retrieval", {"top_k": 30}))  # with the offline exact solver


def haystacks(theme: Path, work: Path, clips: int | None, evaluate: bool, extend: int = 1) -> dict:
    """Build ``theme`` with oracle,s,m,l (an icm theme with ``extend`` > 1: over its album extended
    that many times, ``build --extend``) and read the per-item history sizes (and, with
    ``evaluate``, the offline baselines' scores per variant, into ``<release>-eval/``)."""
    from mnemoforge.evaluation.matrix import default_out
    from mnemoforge.evaluation.methods import MethodConfig
    from mnemoforge.evaluation.variant_curve import evaluate_variants
    from mnemoforge.pipeline import build

    data = yaml.safe_load(theme.read_text())
    if clips:
        data.setdefault("album", {})["clips"] = clips
        data["name"] = f"{data['name']}-{clips}clips"
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    extend = extend if data.get("family", "icm") == "icm" else 1
    t0 = time.perf_counter()
    rel = build(path, outputs=work, workers=2, variants=NAMES, extend=extend).release_dir
    took = time.perf_counter() - t0
    m = json.loads((rel / "MANIFEST.json").read_text())
    fam = m["family"]
    size = {}
    for v in m["variants"]:
        rows = (rel / f"data/{fam}/variants/{v['name']}/haystacks.jsonl").read_text().splitlines()
        size[v["name"]] = {json.loads(r)["item"]: json.loads(r)["size"] for r in rows}
    both = sorted(set(size["s"]) & set(size["l"]))
    paired = sum(size["l"][i] for i in both) / max(1, sum(size["s"][i] for i in both))
    stages = json.loads((rel / "gates/funnel.json").read_text())["stages"]
    funnel = next((g for g in stages if g.get("gate") == "variant_history"), {})
    dropped = [json.loads(r) for r in (rel / "gates/verdicts.jsonl").read_text().splitlines()]
    dropped = sorted(v["reason"] for v in dropped if v["gate"] == "variant_history" and not v["keep"])
    by = {v["name"]: v for v in m["variants"]}
    out = {
        "theme": str(theme.relative_to(ROOT) if theme.is_relative_to(ROOT) else theme),
        "clips": clips, "release": str(rel), "items": m["counts"]["questions"], "unit": by["l"]["unit"],
        "variants": {n: {k: v[k] for k in ("size", "size_min", "size_max", "observations", "questions",
                                           "left_out")} for n, v in by.items()},
        "l_over_s": round(by["l"]["size"] / by["s"]["size"], 2),
        "l_over_s_paired": round(paired, 2),
        "l_over_s_min_per_item": round(min((size["l"][i] / size["s"][i] for i in both), default=0), 2),
        "extend": extend, "clips_total": m["counts"].get("clips"), "build_s": round(took, 1),
        "dropped_by_variant_history": funnel.get("rejected", 0),
        "dropped_first_variant": funnel.get("reasons", {}),
        "dropped_examples": dropped[:6],
        "scores": {},
    }  # fmt: skip
    for method, cfg in BASELINES if evaluate else ():
        name = f"{method}{cfg.get('top_k', '')}__symbolic"
        rows, _ = evaluate_variants(
            rel, "all", method, "symbolic", default_out(rel) / name, config=MethodConfig(**cfg)
        )
        out["scores"][name] = {r["variant"]: [r["score"], r["shared_score"]] for r in rows}
    return out


def print_haystacks(r: dict) -> None:
    at = f" at {r['clips']} clips" if r["clips"] else ""
    at += f", album extended x{r['extend']} ({r['clips_total']} clips)" if r.get("extend", 1) > 1 else ""
    print(f"\n{r['theme']}{at}: {r['items']} items")
    print(f"variant  items  left out  {r['unit']} per history (mean, min-max)  observations (mean)")
    for n, v in r["variants"].items():
        span = f"{v['size']:>10} ({v['size_min']}-{v['size_max']})"
        print(f"{n:<8} {v['questions']:>5} {v['left_out']:>9}  {span:<30} {v['observations']:>10}")
    print(
        f"L / S: {r['l_over_s']} (means); {r['l_over_s_paired']} over the items in both; "
        f"at least {r['l_over_s_min_per_item']} per item; build {r['build_s']} s"
    )
    if r["dropped_by_variant_history"]:
        print(
            f"dropped by variant_history: {r['dropped_by_variant_history']} (first failing variant: "
            f"{r['dropped_first_variant']}), e.g."
        )
        for why in r["dropped_examples"][:3]:
            print(f"  {why[:150]}")
    for name, scores in r["scores"].items():
        line = ", ".join(f"{v} {100 * a:.1f}% (shared {100 * b:.1f}%)" for v, (a, b) in scores.items())
        print(f"{name}: {line}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--theme", type=Path, help="theme YAML (default: the tests' tiny icm album)")
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/variants_scale.json")
    ap.add_argument(
        "--haystacks", type=Path, nargs="*",
        help="instead of the timing: build these themes (none named: the shipped life_album and "
        "office_launch) with oracle,s,m,l and print each variant's per-item history sizes and L/S",
    )  # fmt: skip
    ap.add_argument("--clips", type=int, help="--haystacks: an icm theme's album.clips instead of its own")
    ap.add_argument("--evaluate", action="store_true", help="--haystacks: also score the offline baselines")
    ap.add_argument("--outputs", type=Path, help="--haystacks: keep the builds here (default: a temp folder)")
    ap.add_argument(
        "--extend", type=int, metavar="K", default=1,
        help="--haystacks: build the icm themes with --extend K (the variants draw filler from K times "
        "the album's clips, more clips of the same World)",
    )  # fmt: skip
    args = ap.parse_args()
    if args.haystacks is not None:
        found = []
        with tempfile.TemporaryDirectory(prefix="mf-haystacks-") as tmp:
            for theme in args.haystacks or SHIPPED:
                work = args.outputs or Path(tmp)
                found.append(haystacks(theme.resolve(), work, args.clips, args.evaluate, args.extend))
                print_haystacks(found[-1])
        write_result(args.json, {"haystacks": found})
        print(f"\nwrote {args.json}")
        return
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
