"""The numpy MiniLM encoder against sentence-transformers: load cost, encode cost, agreement.

    python benchmarks/minilm_encoder.py [--release DIR ...] [--threads 1]

Embeds the question, option and observation texts of the given release folders (default: the
texts of a fresh build of the smm test theme ``tests/themes/ferry_crew.yaml``; any release folder
works)
with both encoders, each in a fresh subprocess so the load includes its imports, and reports CPU
seconds (the process's own, from ``resource``) for load and encode, their ratios, and the largest
component difference. ``--threads`` sets OMP_NUM_THREADS for both (the test suite's workers use 1).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys
import numpy as np
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
texts = json.load(open(sys.argv[2]))
t0 = cpu()
from mnemoforge.validators.answerers.embedding import default_model_path
if sys.argv[1] == "numpy":
    from mnemoforge.validators.answerers import minilm
    enc = minilm.encoder(default_model_path())
    t1 = cpu(); vecs = enc.encode(texts)
else:
    from mnemoforge.validators.answerers.embedding import load_model
    model = load_model(default_model_path())
    t1 = cpu()
    vecs = model.encode(
        texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
t2 = cpu()
np.save(sys.argv[3], vecs.astype(np.float32))
print(json.dumps({"load_cpu_s": round(t1 - t0, 3), "encode_cpu_s": round(t2 - t1, 3)}))
"""


def texts_of(folders: list[Path]) -> list[str]:
    out: set[str] = set()
    for folder in folders:
        for path in sorted(folder.glob("data/*/*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                for key in ("question", "answer", "text", "transcript", "caption"):
                    if isinstance(row.get(key), str) and row[key].strip():
                        out.add(row[key])
                out.update(str(o) for o in row.get("options") or [])
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", type=Path, nargs="*", default=[])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import numpy as np

    with tempfile.TemporaryDirectory() as d:
        folders = args.release
        if not folders:
            from mnemoforge.pipeline import build

            theme = Path(__file__).resolve().parent.parent / "tests/themes/ferry_crew.yaml"
            folders = [build(theme, outputs=Path(d) / "out", workers=1).release_dir]
        texts = texts_of(folders)
        (Path(d) / "t.json").write_text(json.dumps(texts))
        env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "MNEMOFORGE_CACHE": d}
        res = {}
        for name in ("numpy", "sentence_transformers"):
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, name, str(Path(d) / "t.json"), str(Path(d) / f"{name}.npy")],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            res[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        a, b = np.load(Path(d) / "numpy.npy"), np.load(Path(d) / "sentence_transformers.npy")
    report = {
        "texts": len(texts),
        "threads": args.threads,
        **{f"{k}_{m}": v for k, r in res.items() for m, v in r.items()},
        "load_ratio_numpy_over_st": round(
            res["numpy"]["load_cpu_s"] / res["sentence_transformers"]["load_cpu_s"], 3
        ),
        "encode_ratio_numpy_over_st": round(
            res["numpy"]["encode_cpu_s"] / max(1e-9, res["sentence_transformers"]["encode_cpu_s"]), 3
        ),
        "max_abs_difference": float(np.abs(a - b).max()),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
