"""Retrieval methods at ICM-Bench scale: MiniLM against BM25, context building only.

The default theme is planned at 840 clips (``plan``, ``episodes`` and ``questions`` stages, exactly
as a build runs them; nothing is rendered: retrieval reads text) and its candidates become the
items of an agent view. For each retriever the ``retrieval`` method builds every item's context
(the history up to the item's cutoff, ranked against the question, top 5), timed in one run:

- ``bm25``: one BM25 index per cutoff (items sharing a cutoff share it);
- ``minilm`` cold: the release's history embedded once (``evaluation/vectors.py``) with an empty
  vector cache (a private ``MNEMOFORGE_CACHE``), then one question vector per item;
- ``minilm`` warm: the same in a fresh process-level state, the history's vectors read from the
  on-disk cache (a second method, model or run over the same release);

and the ratios to BM25 (goal: warm <= 3x). No model is called. Writes
``benchmarks/results/retrieval_scale.json``. Figures from a shared 2-core machine are indicative.

    .venv/bin/python benchmarks/retrieval_scale.py [--clips 840] [--questions 1217] [--limit N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def plan_run(clips: int, questions: int, outputs: Path) -> Path:
    """Plan the default theme at ``clips`` clips and ``questions`` questions up to its candidates
    (no render); the run folder."""
    import yaml

    from mnemoforge import yaml_io
    from mnemoforge.pipeline import BuildContext, prepare, stage_episodes, stage_plan, stage_questions

    data = yaml_io.safe_load((ROOT / "assets/themes/life_album.yaml").read_text())
    data["album"]["clips"] = clips
    data["questions"]["total"] = questions
    theme = outputs / "life_album_scale.yaml"
    theme.parent.mkdir(parents=True, exist_ok=True)
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    ctx = BuildContext(theme, outputs, data.get("seed", 0))
    prepare(ctx)
    for stage in (stage_plan, stage_episodes, stage_questions):
        stage(ctx)
    return ctx.run.root


def agent_view(run: Path, limit: int | None):  # type: ignore[no-untyped-def]
    from mnemoforge.exporters.tables import read_jsonl
    from mnemoforge.exporters.views import AgentView, agent_item, agent_observation, strip_keys

    obs = sorted(
        (agent_observation(o) for o in read_jsonl(run / "episodes/observations.jsonl")),
        key=lambda o: (o["order"], o["timestamp"], o["id"]),
    )
    items = [agent_item(q) for q in read_jsonl(run / "questions/candidates.jsonl")][:limit]
    caps = [strip_keys(c) for c in read_jsonl(run / "episodes/captions.jsonl")]
    return AgentView(root=run, family="icm", items=items, observations=obs, captions=caps)


def contexts(view, retriever: str) -> tuple[float, list[list[str]]]:  # type: ignore[no-untyped-def]
    """Seconds to build every item's retrieval context, and the contexts (observation ids)."""
    from mnemoforge.evaluation.methods import MethodConfig, MethodInput, retrieval

    inp = MethodInput(view, MethodConfig(retriever=retriever, top_k=5))
    t0 = time.perf_counter()
    out = [retrieval(inp, item).observation_ids for item in view.items]
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--questions", type=int, default=1217, help="questions asked for (ICM-Bench: 1,217)")
    ap.add_argument("--limit", type=int, default=None, help="items (default: every candidate)")
    ap.add_argument("--keep", type=Path, default=None, help="plan into DIR and keep it")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/retrieval_scale.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mf-retrieval-"))
    os.environ["MNEMOFORGE_CACHE"] = str(work / "cache")  # an empty vector cache: the cold run is cold
    from mnemoforge.evaluation import vectors
    from mnemoforge.validators.answerers import embed_cache

    t0 = time.perf_counter()
    run = plan_run(args.clips, args.questions, args.keep or work / "outputs")
    planned = time.perf_counter() - t0
    view = agent_view(run, args.limit)
    bm25_s, bm25 = contexts(view, "bm25")
    # planning embeds the history's sentences too (the questions stage's text share screens option
    # sets with MiniLM): a fresh, empty cache and no memo, so the cold run is cold
    os.environ["MNEMOFORGE_CACHE"] = str(work / "cache-cold")
    vectors._MEMO.clear()
    embed_cache._MEM.clear()
    cold_s, cold = contexts(view, "minilm")
    vectors._MEMO.clear()  # a fresh process as far as the history's vectors go (the disk cache stays)
    embed_cache._MEM.clear()
    warm_s, warm = contexts(view, "minilm")
    overlap = sum(len(set(a) & set(b)) for a, b in zip(bm25, warm, strict=True)) / max(
        1, sum(len(a) for a in bm25)
    )
    res = {
        "scale": {
            "clips": args.clips,
            "questions_asked": args.questions,
            "observations": len(view.observations),
            "items": len(view.items),
        },  # fmt: skip
        "plan_s": round(planned, 1),
        "seconds": {
            "bm25": round(bm25_s, 3),
            "minilm_cold": round(cold_s, 3),
            "minilm_warm": round(warm_s, 3),
        },
        "ratio_to_bm25": {"minilm_cold": round(cold_s / bm25_s, 2), "minilm_warm": round(warm_s / bm25_s, 2)},
        "goal": "minilm_warm <= 3x bm25",
        "met": warm_s <= 3 * bm25_s,
        "same_contexts_warm_as_cold": warm == cold,
        "overlap_with_bm25": round(overlap, 3),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, res)
    n = len(view.items)
    print(f"retrieval over {len(view.observations)} observations, {n} items ({args.clips} clips)")
    for name, s in res["seconds"].items():
        print(f"  {name:12s} {s:8.2f} s  ({s / max(1, n) * 1000:.1f} ms an item)")
    ratio = res["ratio_to_bm25"]
    print(f"  MiniLM / BM25: cold {ratio['minilm_cold']}x, warm {ratio['minilm_warm']}x")
    print(f"  goal (warm <= 3x): {'met' if res['met'] else 'NOT met'}; wrote {args.json}")


if __name__ == "__main__":
    main()
