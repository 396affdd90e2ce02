"""Run exports through the peers' own code (your checkouts of it), offline.

    mnemoforge export RELEASE --format locomo --out OUT/locomo
    python scripts/check_peer_exports.py --locomo-export OUT/locomo --locomo ~/src/LoCoMo --mem0 ~/src/mem0
    mnemoforge export RELEASE --format m3bench --out ~/src/m3-agent
    python scripts/check_peer_exports.py --m3 ~/src/m3-agent

Each check runs in its own interpreter (``--python``, which needs the peer's light dependencies:
LoCoMo ``regex nltk numpy tqdm``, mem0 ``python-dotenv tqdm``) with only what needs a network or a
model replaced: LoCoMo's model call (``global_methods.run_chatgpt``, answering "Not mentioned in
the conversation"), its tokenizer and ``bert_score``; mem0's ``MemoryClient``; M3-Agent's video,
face and voice processing. The rest is the peer's code as checked out:

* LoCoMo: ``task_eval.gpt_utils.get_gpt_answers`` (what ``evaluate_qa.py`` calls), then
  ``evaluation.eval_question_answering`` and ``evaluation_stats.analyze_aggr_acc``;
* mem0: ``evaluation/src/memzero/add.py`` ``MemoryADD.process_all_conversations``;
* M3-Agent: ``m3_agent/memorization_intermediate_outputs.py`` run from the checkout root.

Prints one JSON line per check; exits 1 if any fails. Nothing of the peers' code is part of
mnemoforge: this script only imports it from the paths you give.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

LOCOMO = r"""
import sys, types, json, argparse
repo, data_file = sys.argv[1], sys.argv[2]
sys.path.insert(0, repo)
calls = []
gm = types.ModuleType("global_methods")
gm.run_chatgpt = lambda query, **kw: calls.append(query) or "Not mentioned in the conversation"
sys.modules["global_methods"] = gm
ru = types.ModuleType("task_eval.rag_utils"); ru.get_embeddings = None
sys.modules["task_eval.rag_utils"] = ru
class Enc:
    def encode(self, s): return s.split()
tk = types.ModuleType("tiktoken"); tk.encoding_for_model = lambda m: Enc(); sys.modules["tiktoken"] = tk
bs = types.ModuleType("bert_score"); bs.score = None; sys.modules["bert_score"] = bs
import tempfile, os
import task_eval.gpt_utils as g
from task_eval.evaluation import eval_question_answering
from task_eval.evaluation_stats import analyze_aggr_acc
# a gpt-3.5 name: LoCoMo sleeps 5 s per call for gpt-4 names (rate limits of a model not called here)
model = "gpt-3.5-turbo-16k"
args = argparse.Namespace(model=model, batch_size=1, use_rag=False, overwrite=False, data_file=data_file)
key = model + "_prediction"
out, per_cat = [], {}
for data in json.load(open(data_file)):
    answers = g.get_gpt_answers(data, {"sample_id": data["sample_id"], "qa": data["qa"].copy()}, key, args)
    ems, _, _ = eval_question_answering(answers["qa"], key)
    for qa, em in zip(answers["qa"], ems):
        qa[model + "_f1"] = em
        per_cat.setdefault(str(qa["category"]), []).append(float(em))
    out.append(answers)
with tempfile.TemporaryDirectory() as td:
    res = os.path.join(td, "out.json")
    json.dump(out, open(res, "w"))
    analyze_aggr_acc(data_file, res, os.path.join(td, "stats.json"), model, model + "_f1")
print(json.dumps({"check": "locomo", "samples": len(out), "model_calls": len(calls),
                  "items_per_category": {c: len(v) for c, v in sorted(per_cat.items())}}))
"""

MEM0 = r"""
import sys, types, json
repo, data_file = sys.argv[1], sys.argv[2]
sys.path.insert(0, repo + "/evaluation")
added = []
class MemoryClient:
    def __init__(self, **kw): pass
    def update_project(self, **kw): pass
    def delete_all(self, user_id): pass
    def add(self, message, user_id, **kw): added.append(user_id)
m = types.ModuleType("mem0"); m.MemoryClient = MemoryClient; sys.modules["mem0"] = m
from src.memzero.add import MemoryADD
MemoryADD(data_path=data_file, batch_size=2).process_all_conversations(max_workers=1)
print(json.dumps({"check": "mem0", "add_calls": len(added), "users": sorted(set(added))}))
"""

M3 = r"""
import sys, types, json, runpy, os
os.chdir(sys.argv[1]); sys.path.insert(0, os.getcwd())
seen = []
vp = types.ModuleType("mmagent.utils.video_processing")
vp.process_video_clip = lambda path: seen.append(path) or (b"v", [b"f"], b"a")
fp = types.ModuleType("mmagent.face_processing"); fp.process_faces = lambda *a, **k: None
vo = types.ModuleType("mmagent.voice_processing"); vo.process_voices = lambda *a, **k: None
for name, mod in {"mmagent": types.ModuleType("mmagent"), "mmagent.utils": types.ModuleType("mmagent.utils"),
                  "mmagent.utils.video_processing": vp, "mmagent.face_processing": fp,
                  "mmagent.voice_processing": vo}.items():
    sys.modules[name] = mod
sys.argv = ["m3_agent/memorization_intermediate_outputs.py", "--data_file", "data/data.jsonl"]
runpy.run_path("m3_agent/memorization_intermediate_outputs.py", run_name="__main__")
ids = sorted(int(p.split("/")[-1].split(".")[0]) for p in seen)
print(json.dumps({"check": "m3", "clips": len(ids), "contiguous_from_0": ids == list(range(len(ids)))}))
"""


def _run(python: str, code: str, *argv: str) -> bool:
    proc = subprocess.run([python, "-c", code, *argv], capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith('{"check"')]
    if proc.returncode != 0 or not lines:
        print(json.dumps({"check": code.split('"check": "')[1].split('"')[0], "error": proc.stderr[-1500:]}))
        return False
    print(lines[-1])
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="interpreter with the peers' light dependencies")
    ap.add_argument("--locomo-export", help="a LoCoMo export folder (holds locomo.json)")
    ap.add_argument("--locomo", help="a snap-research/LoCoMo checkout")
    ap.add_argument("--mem0", help="a mem0ai/mem0 checkout (with evaluation/, before its removal)")
    ap.add_argument("--m3", help="an M3-Agent checkout holding an m3bench export")
    a = ap.parse_args()
    ok = True
    data = f"{a.locomo_export}/locomo.json" if a.locomo_export else None
    if a.locomo and data:
        ok &= _run(a.python, LOCOMO, a.locomo, data)
    if a.mem0 and data:
        ok &= _run(a.python, MEM0, a.mem0, data)
    if a.m3:
        ok &= _run(a.python, M3, a.m3)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
