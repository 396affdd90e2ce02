"""``mnemoforge export RELEASE --format inspect --out DIR``: an inspect_ai task folder.

``DIR/samples.jsonl`` (rows from :mod:`.harness_common`), ``DIR/tools.json`` (smm) and
``DIR/mnemoforge_task.py`` with three tasks:

* ``mnemoforge_mcq``: ``multiple_choice()`` + ``choice()``, one sample per rotation; metrics
  ``accuracy`` (per rotation, pooled), ``all_four`` (items right under every rotation) and the
  accuracy grouped by the family's table (icm ``category``, smm ``task``, memeye ``cell``);
* ``mnemoforge_open``: ``generate()`` + a normalised exact-match scorer (mnemoforge's);
* ``mnemoforge_calls`` (smm): ``generate()`` + ``score_calls`` on the JSON call plan.

Run it with ``inspect eval DIR/mnemoforge_task.py@mnemoforge_mcq --model openai/...``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mnemoforge.exporters.harness_common import harness_rows, link_media, prepare_out, write_marker
from mnemoforge.store import atomic

GROUP_BY = {"icm": "category", "smm": "task", "memeye": "cell"}

TASK_PY = '''"""inspect_ai tasks for a mnemoforge release ({family}).

Written by `mnemoforge export --format inspect`; run with

    inspect eval mnemoforge_task.py@mnemoforge_mcq --model openai/gpt-4o-mini
"""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Target,
    accuracy,
    choice,
    grouped,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState, generate, multiple_choice

HERE = Path(__file__).resolve().parent
GROUP_BY = {group_by!r}


def _dataset(kind: str) -> MemoryDataset:
    lines = (HERE / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    samples = []
    for r in (json.loads(x) for x in lines if x.strip()):
        if r["kind"] != kind:
            continue
        text = f"Memory:\\n{{r['memory']}}\\n\\nQuestion: {{r['question']}}"
        images = [ContentImage(image=str(HERE / m)) for m in r.get("images") or []]
        prompt = [ChatMessageUser(content=[ContentText(text=text), *images])] if images else text
        samples.append(Sample(input=prompt, choices=r["choices"], target=r["target"], id=r["id"],
                              metadata={{**r["metadata"], "aliases": r.get("aliases") or []}}))
    return MemoryDataset(samples, name=f"mnemoforge-{family}-{{kind}}")


@metric
def all_four() -> Metric:
    """Items answered right under every rotation (MemEye's debiased accuracy)."""

    def compute(scores: list[SampleScore]) -> float:
        items: dict[str, list[bool]] = {{}}
        for s in scores:
            key = (s.sample_metadata or {{}}).get("item_id", s.sample_id)
            items.setdefault(str(key), []).append(s.score.as_float() == 1.0)
        return sum(all(v) for v in items.values()) / len(items) if items else 0.0

    return compute


@scorer(metrics=[accuracy(), grouped(accuracy(), GROUP_BY)])
def normalised_match():
    """mnemoforge's normalised exact match of the first line against the answer and its aliases."""
    from mnemoforge.evaluation.scoring import em_score

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion
        ok = em_score(reply, target.text, state.metadata.get("aliases") or [])
        return Score(value=CORRECT if ok else INCORRECT, answer=reply)

    return score


@scorer(metrics=[accuracy()])
def call_match():
    """Function calls: exact match after argument normalisation (mnemoforge's score_calls)."""
    from mnemoforge.evaluation.scoring import parse_calls_reply
    from mnemoforge.generators.smm.tools import score_calls
    from mnemoforge.schemas.smm import ToolSpec

    tools = {{t["name"]: ToolSpec.model_validate(t) for t in json.loads((HERE / "tools.json").read_text())}}

    async def score(state: TaskState, target: Target) -> Score:
        plan = parse_calls_reply(state.output.completion)
        ok = plan is not None and score_calls(plan, json.loads(target.text), tools) == 1.0
        return Score(value=CORRECT if ok else INCORRECT, answer=state.output.completion)

    return score


@task
def mnemoforge_mcq() -> Task:
    return Task(dataset=_dataset("mcq"), solver=multiple_choice(), scorer=choice(),
                metrics=[accuracy(), all_four(), grouped(accuracy(), GROUP_BY)])


@task
def mnemoforge_open() -> Task:
    return Task(dataset=_dataset("open"), solver=generate(), scorer=normalised_match())


@task
def mnemoforge_calls() -> Task:
    return Task(dataset=_dataset("call"), solver=generate(), scorer=call_match())
'''


def export_inspect(release: Path, out: Path, max_context_chars: int = 60000) -> list[Path]:
    """Write the inspect task folder; returns the files written."""
    release, out = Path(release), Path(out)
    prepare_out(out, release, "inspect")
    family, rows = harness_rows(release, max_context_chars)
    files = [atomic.write_jsonl(out / "samples.jsonl", rows), *link_media(release, out, rows)]
    files.append(
        atomic.write_text(
            out / "mnemoforge_task.py",
            TASK_PY.format(family=family, group_by=GROUP_BY.get(family, "category")),
        )
    )
    tools = release / "data" / family / "tools.json"
    if tools.is_file():
        shutil.copyfile(tools, out / "tools.json")
        files.append(out / "tools.json")
    files.append(write_marker(out, release, "inspect", files, len(rows)))
    return files
