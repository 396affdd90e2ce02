"""Methods × models in one run (``mnemoforge evaluate RELEASE --matrix MATRIX.yaml``).

::

    methods: [question_only, oracle_evidence, full_context_text, retrieval, concentrated]
    models: [symbolic, smollm2, models/qwen.yaml]   # SPEC files relative to this file
    judge: exact                                     # or a model SPEC
    limit: 40
    workers: 8
    retrieval: {retriever: bm25, top_k: 5}
    frames: {fps: 0.5, max_frames: 4}
    prices: {qwen-7b: {prompt_per_1m: 0.2, completion_per_1m: 0.6, currency: USD}}

Each pair is written to ``OUT/<method>__<model>/`` and all of them to ``OUT/summary.md`` and
``OUT/matrix.json``. On a multi-family release each pair runs over every family and the cross
items (``evaluation/multi.py``), and ``summary.md`` is one row per pair, one column per family.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.keys import EvaluationError, read_yaml_mapping
from mnemoforge.evaluation.methods import MethodConfig
from mnemoforge.store import atomic

FIELDS = {"methods", "models", "judge", "limit", "workers", "retrieval", "frames", "prices"}


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(text).stem if text.endswith((".yaml", ".yml")) else text)


def default_out(release: Path) -> Path:
    """Where results go unless ``--out`` says otherwise: ``<release>-eval/`` beside the release."""
    release = Path(release).resolve()
    return release.parent / f"{release.name}-eval"


def read_matrix(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise EvaluationError(f"{path}: no such matrix file")
    data = read_yaml_mapping(path, "'methods' and 'models'")
    bad = set(data) - FIELDS
    if bad:
        raise EvaluationError(f"{path}: unknown field(s) {sorted(bad)}; known: {sorted(FIELDS)}")
    for key in ("methods", "models"):
        if (
            not isinstance(data.get(key), list)
            or not data[key]
            or not all(isinstance(x, str) for x in data[key])
        ):
            raise EvaluationError(f"{path}: field '{key}' must be a non-empty list of names")
    models = []
    for m in data["models"]:
        if m == "symbolic" or m.split(":")[0] == "smollm2" or Path(m).is_absolute():
            models.append(m)
        else:
            models.append(str((path.parent / m).resolve()))
    data["models"] = models
    judge = data.get("judge")
    builtin = isinstance(judge, str) and (judge == "exact" or judge.split(":")[0] == "smollm2")
    if isinstance(judge, str) and not builtin and not Path(judge).is_absolute():
        data["judge"] = str((path.parent / judge).resolve())
    return data


def method_config(retrieval: dict | None = None, frames: dict | None = None) -> MethodConfig:
    kw: dict[str, Any] = {}
    for k in ("retriever", "top_k"):
        if retrieval and k in retrieval:
            kw[k] = retrieval[k]
    for k in ("fps", "max_frames"):
        if frames and k in frames:
            kw[k] = frames[k]
    return MethodConfig(**kw)


def run_matrix(
    release: Path,
    matrix: Path,
    out: Path | None = None,
    *,
    progress: Any = None,
    limit: int | None = None,
    workers: int | None = None,
    warn: Any = None,
) -> list[dict]:
    """Every method × model pair; returns their results (also written under ``out``)."""
    from mnemoforge.evaluation.cross_keys import release_families
    from mnemoforge.evaluation.multi import evaluate_multi, matrix_markdown
    from mnemoforge.evaluation.runner import evaluate
    from mnemoforge.evaluation.tables import summary_markdown

    spec = read_matrix(Path(matrix))
    out = Path(out) if out else default_out(release)
    cfg = method_config(spec.get("retrieval"), spec.get("frames"))
    judge = spec.get("judge")
    judge = None if judge in (None, "exact") else judge
    prices = spec.get("prices") or {}
    results = []
    multi: list[dict] = []  # a multi-family release: each pair's table by family (evaluation/multi.py)
    for model in spec["models"]:
        for method in spec["methods"]:
            name = slug(model)
            if release_families(release):
                rows, res_parts = evaluate_multi(
                    release, method, model, out / f"{slug(method)}__{name}",
                    limit=limit or spec.get("limit"), workers=workers or int(spec.get("workers", 4)),
                    judge=judge, config=cfg, prices=prices.get(name), progress=progress, warn=warn,
                )  # fmt: skip
                multi.append({"method": method, "model": res_parts[0]["model"]["name"], "rows": rows})
                results += res_parts
                continue
            res = evaluate(
                release,
                method,
                model,
                out / f"{slug(method)}__{name}",
                limit=limit or spec.get("limit"),
                workers=workers or int(spec.get("workers", 4)),
                judge=judge,
                config=cfg,
                prices=prices.get(name),
                progress=progress,
                warn=warn,
            )
            results.append(res)
    atomic.write_text(out / "summary.md", matrix_markdown(multi) if multi else summary_markdown(results))
    atomic.write_json(
        out / "matrix.json",
        {
            "release": str(release),
            "runs": [
                {
                    "method": r["method"],
                    "model": r["model"]["name"],
                    "family": r["family"],
                    "summary": r["summary"],
                    "calibration": r["calibration"],
                    "ledger": r["ledger"],
                }
                for r in results
            ],
        },
    )
    return results
