"""Every benchmark result records the machine it was measured on, and the docs' performance page
shows that block beside the figures."""

from __future__ import annotations

import importlib.util
import json
import re
import stat
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
# scripts that write no result file of their own: helpers, the mutation fork's report to its parent,
# the MiniLM comparison's input list for its child processes (it prints its figures)
NOT_RESULTS = {"machine.py", "procmem.py", "render_scale_report.py", "theme_mutations.py", "mutation_fork.py"}
NOT_RESULTS |= {"minilm_encoder.py"}


def _machine_module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_machine", BENCH / "machine.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _hook():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "hooks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_writes_its_result_through_the_shared_helper() -> None:
    plain_json = re.compile(r"write_text\(\s*json\.dumps")
    writers = []
    for path in sorted(BENCH.glob("*.py")):
        if path.name in NOT_RESULTS:
            continue
        src = path.read_text(encoding="utf-8")
        assert not plain_json.search(src), f"{path.name} writes a result JSON without its machine block"
        if "write_result(" in src:
            writers.append(path.name)
    # the scripts that keep figures under benchmarks/results/ all do it through write_result
    assert {"icm_scale.py", "render_scale.py", "render_floor.py", "suite_cpu.py", "orchestration.py"} <= set(
        writers
    )


def test_write_result_adds_the_machine_block_atomically(tmp_path: Path) -> None:
    m = _machine_module()
    out = m.write_result(tmp_path / "r" / "x.json", {"figure": 1.5, "machine": {"ffmpeg_exe": "ffmpeg"}})
    data = json.loads(out.read_text())
    block = data["machine"]
    assert data["figure"] == 1.5 and block["ffmpeg_exe"] == "ffmpeg"  # a script's own extras stay
    for key in (
        "cpu_model",
        "cpu_count",
        "cpus_usable",
        "loadavg_start",
        "loadavg_end",
        "python",
        "platform",
    ):
        assert key in block, key
    assert block["cpu_count"] >= block["cpus_usable"] >= 1
    assert len(block["loadavg_start"]) == 3 and len(block["loadavg_end"]) == 3
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert [p.name for p in out.parent.iterdir()] == ["x.json"]  # no temporary file left
    busy = {"cpus_usable": 2, "loadavg_start": [9.0, 8, 7], "loadavg_end": [1.0, 1, 1]}
    assert "indicative" in m.shared_note(busy)
    assert "indicative" not in m.shared_note({**busy, "loadavg_start": [0.5, 1, 1]})


def test_performance_page_shows_each_results_machine() -> None:
    hook = _hook()
    page = hook.performance()
    sections = page.split("\n## ")[1:]
    assert sections
    for section in sections:
        assert "*Machine:" in section.splitlines()[2], section[:200]
    line = hook.machine_line(
        {"cpu_model": "Test CPU 9000", "cpu_count": 8, "cpus_usable": 2, "loadavg_start": [3.5, 2, 1],
         "loadavg_end": [4.0, 3, 2], "python": "3.12.1", "platform": "Linux-6", "git_commit": "abc1234",
         "note": "shared machine: 1-min load 4.0 over 2 usable cores, wall figures indicative"}
    )  # fmt: skip
    for text in ("Test CPU 9000", "2 usable of 8 cores", "3.5 / 2 / 1 at start", "4.0 / 3 / 2 at end",
                 "Python 3.12.1", "`abc1234`", "indicative"):  # fmt: skip
        assert text in line, (text, line)
    assert "not recorded" in hook.machine_line(None)
    # the machine block is shown once, as that line, not as table rows
    assert "| `machine." not in page
