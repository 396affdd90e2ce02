"""Reporting for benchmarks/render_scale.py: the machine's description and the printed table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machine import machine as shared_machine

from mnemoforge.backends.video import ffmpeg_exe

HERE = Path(__file__).resolve().parent


def machine() -> dict[str, Any]:
    """The shared machine block (``benchmarks/machine.py``) and the ffmpeg binary used."""
    return {**shared_machine(), "ffmpeg_exe": ffmpeg_exe()}


def print_table(r: dict[str, Any]) -> None:
    s, wall, g = r["scale"], r["wall_s"], r["goals"]
    mr = r["memory"]["phases"].get("render", {})
    mb = r["memory"]["phases"].get("baseline", {})

    def ok(k: str) -> str:
        return "ok" if g[k]["met"] else "MISSED"

    rows = [
        (
            "scale",
            f"{s['clips']} clips, {s['shots']} shots, {s['dialogue_lines']} lines, "
            f"{s['rendered_minutes']:.1f} min rendered ({s['frames']} frames at {s['fps']} fps, "
            f"{s['width']}x{s['height']})",
            "",
        ),
        ("planning", f"{wall['planning']:.2f} s", ""),
        (
            "render stage",
            f"{wall['render_stage']:.1f} s with {r['workers']} workers",
            f"<= 600 s  {ok('render_wall_s')}",
        ),
        ("  parts", ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in wall["render_parts"].items()), ""),
        ("baseline encode", f"{wall['baseline_encode']:.1f} s ({r['workers']} ffmpeg at a time)", ""),
        ("ratio", f"{r['ratio_render_to_baseline']:.2f}x render / baseline", f"<= 1.5x  {ok('ratio')}"),
        (
            "cpu",
            f"render {r['cpu_s']['render_parent'] + r['cpu_s']['render_children']:.0f} cpu-s, "
            f"baseline {r['cpu_s']['baseline_parent'] + r['cpu_s']['baseline_children']:.0f} cpu-s "
            f"({r['cpu_ratio_render_to_baseline']:.2f}x)",
            "",
        ),
        (
            "peak RSS (render)",
            f"tree {mr.get('tree_peak_mb', 0):.0f} MB at once; parent "
            f"{mr.get('parent_peak_mb', 0):.0f} MB; workers' peaks sum "
            f"{mr.get('workers_peak_sum_mb', 0):.0f} MB ({mr.get('workers', 0)} workers); "
            f"largest ffmpeg {mr.get('ffmpeg_peak_max_mb', 0):.0f} MB",
            f"<= 2048 MB  {ok('peak_rss_mb')}",
        ),
        (
            "peak RSS (baseline)",
            f"tree {mb.get('tree_peak_mb', 0):.0f} MB; largest ffmpeg "
            f"{mb.get('ffmpeg_peak_max_mb', 0):.0f} MB",
            "",
        ),
        ("parent VmHWM", f"{r['memory']['parent_hwm_mb']:.0f} MB (whole run)", ""),
        (
            "other load",
            f"{r['contention']['render_foreign_cpu_s']:.0f} cpu-s during render, "
            f"{r['contention']['baseline_foreign_cpu_s']:.0f} cpu-s during baseline "
            f"(other processes; 0 = clean)",
            "",
        ),
        (
            "machine",
            f"{r['machine']['cpus_usable']} cpus, python {r['machine']['python']}, "
            f"{r['machine']['ffmpeg'][:40]}",
            "",
        ),
    ]
    pb = r.get("phase_breakdown")
    if pb:
        rows.append(
            (
                "phase breakdown",
                f"{pb['clips']} clips in-process: render {pb['render_s']:.1f} s, "
                f"baseline {pb['baseline_s']:.1f} s ({pb['ratio']:.2f}x)",
                "",
            )
        )
        rc, bc = pb.get("render_cpu_s"), pb.get("baseline_cpu_s")
        if rc and bc:
            rows.append(
                (
                    "  cpu-s",
                    f"render: python {rc['python']:.1f} + ffmpeg {rc['ffmpeg']:.1f}; "
                    f"baseline: python {bc['python']:.1f} + ffmpeg {bc['ffmpeg']:.1f}",
                    "",
                )
            )
        for k, v in pb["parts_s"].items():
            rows.append((f"  {k}", f"{v:.2f} s ({pb['parts_share'][k] * 100:.0f}%)", ""))
    w0 = max(len(a) for a, _, _ in rows)
    w2 = max(len(c) for _, _, c in rows)
    print()
    for a, b, c in rows:
        print(f"{a:<{w0}}  {c:<{w2}}  {b}".rstrip())
