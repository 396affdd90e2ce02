"""``mnemoforge export RELEASE --format inspect --out DIR``: an inspect_ai task folder.

``DIR/samples.jsonl`` (rows from :mod:`.harness_common`), ``DIR/tools.json`` (when the release
has function-call items) and ``DIR/mnemoforge_task.py``, which defines only the tasks the release
has rows for, so ``inspect eval DIR/mnemoforge_task.py`` runs every task it holds:

* ``mnemoforge_mcq``: ``multiple_choice()`` + ``choice()``, one sample per rotation; metrics
  ``accuracy`` (per rotation, pooled) and ``all_four`` (items right under every rotation), both
  over the items whose every rotation was run (``--limit`` may cut the last one short), and the
  accuracy grouped by the family's table (icm ``category``, smm ``task``, memeye ``cell``);
* ``mnemoforge_open``: ``generate()`` + a normalised exact-match scorer (mnemoforge's);
* ``mnemoforge_calls`` (function-call items): ``generate()`` + ``score_calls`` on the JSON call
  plan, against ``tools.json``.

Run one with ``inspect eval DIR/mnemoforge_task.py@mnemoforge_mcq --model openai/...``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from mnemoforge.evaluation.keys import EvaluationError
from mnemoforge.exporters.harness_common import group_by, harness_rows, link_media, prepare_out, write_marker
from mnemoforge.store import atomic

HEADER = '''"""inspect_ai tasks for a mnemoforge release ({family}): {tasks}.

Written by `mnemoforge export --format inspect`; run them all, or one, with

    inspect eval mnemoforge_task.py --model openai/gpt-4o-mini
    inspect eval mnemoforge_task.py@{first} --model openai/gpt-4o-mini
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
'''

MCQ = '''

def _complete_items(scores: list[SampleScore]) -> dict[str, list[bool]]:
    """Item id -> its answers, for the items whose every rotation was run (``--limit`` may cut
    an item's rotations short: that item is left out, so no metric counts part of one)."""
    seen: dict[str, dict] = {{}}
    for s in scores:
        meta = s.sample_metadata or {{}}
        runs = seen.setdefault(str(meta.get("item_id", s.sample_id)), {{}})
        runs[meta.get("rotation")] = (s.score.as_float() == 1.0, int(meta.get("n_rotations") or 1))
    return {{
        item: [ok for ok, _ in runs.values()]
        for item, runs in seen.items()
        if len(runs) == next(iter(runs.values()))[1]
    }}


@metric(name="accuracy")
def rotation_accuracy() -> Metric:
    """Answers right, over every rotation of the items run whole (NaN when none was)."""

    def compute(scores: list[SampleScore]) -> float:
        answers = [ok for v in _complete_items(scores).values() for ok in v]
        return sum(answers) / len(answers) if answers else float("nan")

    return compute


@metric
def all_four() -> Metric:
    """Items answered right under every rotation (MemEye's debiased accuracy), over the items
    run whole (NaN when none was)."""

    def compute(scores: list[SampleScore]) -> float:
        items = _complete_items(scores)
        return sum(all(v) for v in items.values()) / len(items) if items else float("nan")

    return compute


@task
def mnemoforge_mcq() -> Task:
    return Task(dataset=_dataset("mcq"), solver=multiple_choice(), scorer=choice(),
                metrics=[rotation_accuracy(), all_four(), grouped(rotation_accuracy(), GROUP_BY)])
'''

OPEN = '''

@scorer(metrics=[accuracy(), grouped(accuracy(), GROUP_BY)])
def normalised_match():
    """mnemoforge's normalised exact match of the first line against the answer and its aliases."""
    from mnemoforge.evaluation.scoring import em_score

    async def score(state: TaskState, target: Target) -> Score:
        reply = state.output.completion
        ok = em_score(reply, target.text, state.metadata.get("aliases") or [])
        return Score(value=CORRECT if ok else INCORRECT, answer=reply)

    return score


@task
def mnemoforge_open() -> Task:
    return Task(dataset=_dataset("open"), solver=generate(), scorer=normalised_match())
'''

CALLS = '''

@scorer(metrics=[accuracy()])
def call_match():
    """Function calls: exact match after argument normalisation (mnemoforge's score_calls)."""
    from mnemoforge.evaluation.scoring import parse_calls_reply
    from mnemoforge.generators.tool_calls import score_calls
    from mnemoforge.schemas.smm import ToolSpec

    tools = {{t["name"]: ToolSpec.model_validate(t) for t in json.loads((HERE / "tools.json").read_text())}}

    async def score(state: TaskState, target: Target) -> Score:
        plan = parse_calls_reply(state.output.completion)
        ok = plan is not None and score_calls(plan, json.loads(target.text), tools) == 1.0
        return Score(value=CORRECT if ok else INCORRECT, answer=state.output.completion)

    return score


@task
def mnemoforge_calls() -> Task:
    return Task(dataset=_dataset("call"), solver=generate(), scorer=call_match())
'''

TASKS = {
    "mcq": ("mnemoforge_mcq", MCQ),
    "open": ("mnemoforge_open", OPEN),
    "call": ("mnemoforge_calls", CALLS),
}
"""Row kind -> (task name, its definition); a task file holds those its release has rows for."""


def task_source(family: str, kinds: Iterable[str]) -> str:
    """``mnemoforge_task.py`` defining the tasks of these row kinds (in :data:`TASKS` order)."""
    wanted = set(kinds)
    present = [k for k in TASKS if k in wanted]
    if not present:
        raise EvaluationError(f"a release of family {family!r} with no items: no inspect task to write")
    names = [TASKS[k][0] for k in present]
    fmt = {"family": family, "group_by": group_by(family)}
    text = HEADER.format(**fmt, tasks=", ".join(names), first=names[0])
    return text + "".join(TASKS[k][1].format(**fmt) for k in present)


def export_inspect(release: Path, out: Path, max_context_chars: int = 60000) -> list[Path]:
    """Write the inspect task folder; returns the files written."""
    release, out = Path(release), Path(out)
    prepare_out(out, release, "inspect")
    family, rows = harness_rows(release, max_context_chars)
    kinds = {r["kind"] for r in rows}
    tools = release / "data" / family / "tools.json"
    if "call" in kinds and not tools.is_file():
        raise EvaluationError(f"{tools}: missing; the release's function-call items are scored against it")
    files = [atomic.write_jsonl(out / "samples.jsonl", rows), *link_media(release, out, rows)]
    files.append(atomic.write_text(out / "mnemoforge_task.py", task_source(family, kinds)))
    if "call" in kinds:
        shutil.copyfile(tools, out / "tools.json")
        files.append(out / "tools.json")
    files.append(write_marker(out, release, "inspect", files, len(rows)))
    return files
