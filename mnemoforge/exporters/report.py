"""A static HTML report of a run or release: cast, timeline, graph, gates, taxonomy, examples.

:func:`write_report` reads a release folder (``MANIFEST.json``) or a run folder (``run.json``),
draws PNG figures into ``out_dir/figures``, copies evidence stills into ``out_dir/media`` and
writes ``out_dir/index.html``: relative links only, no scripts, no network resources, all text
escaped. The same input gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections import Counter
from contextlib import nullcontext
from functools import partial
from html import escape
from itertools import groupby
from pathlib import Path

from PIL import Image

from mnemoforge import yaml_io
from mnemoforge.backends.image.documents import render_bar_chart
from mnemoforge.backends.registry import image_backend
from mnemoforge.exporters import report_families as fam
from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.contact_sheet import contact_sheet, world_sheet
from mnemoforge.exporters.report_html import CSS, _card, _fig, _table
from mnemoforge.exporters.report_icm import render_audit_of, render_audit_table
from mnemoforge.exporters.report_source import Rec, Source, _unit, load_source
from mnemoforge.schemas.theme import RenderSpec, Theme
from mnemoforge.store.atomic import write_bytes, write_text
from mnemoforge.theme_io import ThemeError, load_theme

__all__ = ["Source", "_card", "load_source", "write_report"]
EXAMPLES_PER_CATEGORY = 3


def _save(out_dir: Path, name: str, img: Image.Image) -> Rec:
    """Write ``figures/<name>.png``; return what the page needs to show it."""
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="PNG")
    write_bytes(out_dir / "figures" / f"{name}.png", buf.getvalue())
    return {"src": f"figures/{name}.png", "width": img.width, "height": img.height}


def _theme(root: Path) -> Theme:
    """The run's theme; voice checks are skipped where this machine's speech engines differ."""
    try:
        return load_theme(root / "theme.yaml")
    except ThemeError:
        return Theme.model_validate(yaml_io.safe_load((root / "theme.yaml").read_text(encoding="utf-8")))


def _cast(theme: Theme) -> Image.Image:
    """The contact sheet with the theme's image backend, or the procedural one where it cannot load."""
    try:
        return contact_sheet(theme, image_backend(theme.render))
    except (ImportError, OSError, RuntimeError):
        return contact_sheet(theme, image_backend(RenderSpec()))


def anchor_file(root: Path, pid: str) -> Path:
    """A person's face-anchor file in a run or release (opaque names, mapped by ``anchors.json``:
    under ``media/`` in a run, with the annotations in a release), or the old ``<id>.png``."""
    for rel in (
        "media/anchors.json",
        *(str(p.relative_to(root)) for p in root.glob("data/*/annotations/anchors.json")),
    ):
        path = root / rel
        if path.is_file():
            got = json.loads(path.read_text(encoding="utf-8")).get(pid)
            if got:
                return root / got
    return root / "media" / "anchors" / f"{pid}.png"


def _figures(src: Source, theme: Theme, out_dir: Path) -> dict[str, Rec]:
    """Draw every figure; returns name -> {src, width, height}."""
    w = src.world
    imgs = {"cast": _cast(theme)}
    rows = []
    for p in src.people.values():
        face = anchor_file(src.root, p["id"])
        with Image.open(face) if face.is_file() else nullcontext() as img:
            rows.append(rf.PersonRow(p["id"], p["name"], p.get("role", ""), img and img.convert("RGB")))
    start = dt.date.fromisoformat(w.get("start") or theme.start.isoformat())
    end = dt.date.fromisoformat(w.get("end") or theme.end.isoformat())
    icm, units = src.icm, _unit(src)
    if icm:
        imgs["timeline"] = rf.timeline_figure(rows, rf.clip_marks(src.clips), start, end)
    else:
        imgs["timeline"] = src.part.timeline(src, rows, start, end)  # type: ignore[union-attr]
    relations = {}
    for r in w.get("relations", []):
        relations[tuple(sorted((r["a"], r["b"])))] = r.get("a_calls_b") or r["kind"].replace("_", " ")
    pairs = rf.co_occurrence(src.episodes)
    small = {} if icm or len(rows) > 3 else {"width": 760}  # a cast of two or three
    imgs["sources"] = rf.relation_graph(
        rows, relations, pairs, centre=w.get("protagonist"), unit=units[1], **small
    )
    imgs |= _icm_figures(src, theme, rows) if icm else src.part.figures(src, rows)  # type: ignore[union-attr]
    stages = src.funnel.get("stages", [])
    labels = ["candidates", *(s["gate"].replace("_", " ") for s in stages)]
    values = [src.candidates, *(s["kept"] for s in stages)]
    imgs["funnel"] = render_bar_chart("Gate funnel: items left after each gate", labels, values, height=400)
    key, per = ("evidence_clips", ("clip", "clips")) if icm else ("evidence_sources", ("source", "sources"))
    imgs["heatmap"] = rf.taxonomy_heatmap(src.questions, key, per)
    counts = Counter(q["category"] for q in src.questions)
    cats = sorted(counts) or ["(none)"]
    labels, values = [rf.category_name(c) for c in cats], [counts.get(c, 0) for c in cats]
    imgs["categories"] = render_bar_chart("Questions per category", labels, values)
    return {name: _save(out_dir, name, img) for name, img in imgs.items()}


def _icm_figures(src: Source, theme: Theme, rows: list[rf.PersonRow]) -> dict[str, Image.Image]:
    """Places x people and activities x people, counted over clips."""
    w, imgs = src.world, {}
    places, why = [(p["id"], p["name"]) for p in w.get("places", [])], "Clips in which each person is there."
    imgs["sources_places"] = rf.presence_heatmap("Places x people", places, rows, src.clips, _places, why)
    kinds, why = [(a.id, a.noun) for a in theme.activities], "Clips in which each person takes part in it."
    events = {e["id"]: e["activity"] for e in w.get("events", [])}
    doing = partial(_activity, events)
    imgs["sources_activities"] = rf.presence_heatmap(
        "Activities x people", kinds, rows, src.clips, doing, why
    )
    imgs["world_sheet"] = world_sheet(src.root, w, src.clips)
    return imgs


def _places(clip: Rec) -> set[str]:
    return {s["place"] for s in clip["shots"]}


def _activity(events: dict[str, str], clip: Rec) -> set[str]:
    return {events.get(clip.get("event") or "", "")}


def _pick(questions: list[Rec]) -> list[Rec]:
    """Up to ``EXAMPLES_PER_CATEGORY`` of these id-sorted questions: the first of each template first."""
    firsts = {q.get("lineage", {}).get("template", ""): q for q in reversed(questions)}
    ordered = sorted(firsts.values(), key=lambda q: q["id"])
    return (ordered + [q for q in questions if q not in ordered])[:EXAMPLES_PER_CATEGORY]


def _examples(src: Source, out_dir: Path) -> list[Rec]:
    """Example items per category with their evidence stills copied to ``out_dir/media/shots``
    (or, without clips, the evidence observations' images to their own paths under ``media/``)."""
    shots = {s["id"]: s for c in src.clips for s in c["shots"]}
    line_shot = {ln["id"]: s for s in shots.values() for ln in s.get("dialogue", [])}
    lines = {ln["id"]: ln for s in shots.values() for ln in s.get("dialogue", [])}
    clip_at = {c["index"]: c for c in src.clips}
    places = {p["id"]: p["name"] for p in src.world.get("places", [])}
    out = []
    for cat, group in groupby(
        sorted(src.questions, key=lambda q: (q["category"], q["id"])), lambda q: q["category"]
    ):
        questions, items = list(group), []
        for q in _pick(questions):
            if not src.icm:
                extra, structured = fam.card_extra(src, q)
                evidence = [fam.evidence(src, oid, out_dir) for oid in q.get("evidence", [])]
                cut = q.get("cutoff")
                cutoff = "full timeline" if cut is None else f"up to {cut}"
                items.append({"q": q, "cutoff": cutoff, "evidence": evidence, "extra": extra,
                              "structured": structured})  # fmt: skip
                continue
            evidence = []
            for oid in q.get("evidence", []):
                shot, line = shots.get(oid) or line_shot.get(oid), lines.get(oid)
                still = None
                if shot and (src.root / "media" / "shots" / f"{shot['id']}.png").is_file():
                    still = f"media/shots/{shot['id']}.png"
                    write_bytes(out_dir / still, (src.root / still).read_bytes())
                obs = src.observations.get(oid, {})
                evidence.append(
                    {
                        "id": oid,
                        "still": still,
                        "speech": line is not None,
                        "text": line["text"] if line else obs.get("content", ""),
                        "speaker": src.people.get(line["speaker"], {}).get("name", "") if line else "",
                        "where": places.get(shot["place"], shot["place"]) if shot else "",
                        "when": (shot["start"] if shot else str(obs.get("timestamp", "")))[:10],
                    }
                )
            cut = q.get("cutoff")
            cutoff = "full timeline" if cut is None else f"up to clip {cut}"
            if cut is not None and cut in clip_at:
                cutoff += f" ({clip_at[cut]['start'][:10]})"
            items.append({"q": q, "cutoff": cutoff, "evidence": evidence})
        out.append({"id": cat, "name": rf.category_name(cat), "items": items, "total": len(questions)})
    return out


def _people(src: Source) -> str:
    """Who is who: relation to the protagonist, clips seen in, lines spoken, signature object."""
    me = src.world.get("protagonist")
    rel = {r["b"]: r.get("a_calls_b") or r["kind"] for r in src.world.get("relations", []) if r["a"] == me}
    rel |= {r["a"]: r["kind"] for r in src.world.get("relations", []) if r["b"] == me and r["a"] not in rel}
    marks = rf.clip_marks(src.episodes)
    objects = {o["id"]: o["name"] for o in src.world.get("objects", [])}
    if not src.icm:
        rounds = Counter(p for o in src.observations.values() for p in o.get("people", []))
        rows = [
            [p["name"], "protagonist" if pid == me else rel.get(pid, "-"), p.get("role", "-"),
             sum(pid in m.seen for m in marks), rounds.get(pid, 0)]
            for pid, p in src.people.items()
        ]  # fmt: skip
        return _table(["person", "relation", "role", f"{_unit(src)[1]} present", "rounds"], rows)
    rows = [
        [p["name"], "protagonist" if pid == me else rel.get(pid, "-"),
         sum(pid in m.seen for m in marks), sum(pid in m.speakers for m in marks),
         objects.get(p.get("signature_object") or "", "-")]
        for pid, p in src.people.items()
    ]  # fmt: skip
    return _table(["person", "relation", "clips seen", "clips speaking", "signature object"], rows)


def _header(src: Source, title: str, description: str, nav: list[tuple[str, str]]) -> str:
    shots = [s for c in src.clips for s in c["shots"]]
    stats = (
        src.part.header_stats(src)
        if src.part is not None
        else [
            (len(src.clips), "clips"),
            (f"{sum(s.get('duration_s', 0) for s in shots) / 60:.1f}", "minutes"),
            (len(shots), "shots"),
            (sum(len(s.get("dialogue", [])) for s in shots), "spoken lines"),
            (len(src.people), "people"),
            (f"{len(src.questions)} / {src.candidates}", "questions kept"),
        ]
    )
    sub = f"{src.label} \u00b7 family {src.family} \u00b7 seed {src.meta.get('seed', '?')}"
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} \u2014 report</title><style>{CSS}</style></head><body><header>"
        f'<h1>{escape(title)}</h1><p class="sub">{escape(sub)}</p><p class="desc">{escape(description)}</p>'
        + '<div class="stats">'
        + "".join(f'<div class="stat"><b>{escape(str(v))}</b><span>{k}</span></div>' for v, k in stats)
        + "</div><nav>"
        + "".join(f'<a href="#{sid}">{escape(name)}</a>' for sid, name in nav)
        + "</nav></header><main>"
    )


def _page(src: Source, title: str, description: str, figs: dict[str, Rec], examples: list[Rec]) -> str:
    gates = [
        [
            s["gate"],
            s["kept"],
            s["rejected"],
            "; ".join(f"{k}: {v}" for k, v in sorted(s.get("reasons", {}).items())) or "-",
        ]
        for s in src.funnel.get("stages", [])
    ]
    gate_table = (
        _table(["gate", "kept", "rejected", "reject reasons"], gates) if gates else "<p>No gates.</p>"
    )
    has_xy = bool(src.questions) and all(rf.xy_label(q) for q in src.questions)
    no_xy = (
        '<p class="note"><b>No X/Y labels in this release.</b> Its questions carry no X/Y taxonomy; the '
        f"heatmap shows category &times; number of distinct evidence {'clips' if src.icm else 'sources'} "
        "instead.</p>"
    )
    examples_html = "".join(
        f'<h3 id="cat-{escape(c["id"])}">{escape(c["name"])} <small>{len(c["items"])} of {c["total"]}'
        f'</small></h3><div class="cards">{"".join(_card(i) for i in c["items"])}</div>'
        for c in examples
    )
    kept = f"{src.candidates} candidates; {len(src.questions)} kept after every gate."
    row = '<div class="row">{}</div>'.format
    cats = _fig(figs, "categories", "Kept questions per category")
    one, many = _unit(src)
    if src.icm:
        places = _fig(figs, "sources_places", "Places x people") + _fig(
            figs, "sources_activities", "Activities x people"
        )
        src_lead, src_body = (
            "Who is seen with whom, and where; what the media were audited against.",
            row(_fig(figs, "sources", "Relations and shared clips") + places)
            + row(_fig(figs, "world_sheet", "Places, objects and animals as drawn, across time"))
            + render_audit_table(render_audit_of(src.root, src.stats)),
        )
        when = (
            "When each person appears across the album.",
            "One row per person; a mark per clip they are seen in.",
        )
        ev_lead = "(shot stills; spoken lines quoted)"
    else:
        src_lead, src_body = src.part.section(src, figs)  # type: ignore[union-attr]
        lane = src.part.lane  # type: ignore[union-attr]
        when = (f"When each {lane} is active, {one} by {one}.", f"One row per {lane}; a mark per {one}.")
        ev_lead = src.part.evidence_lead  # type: ignore[union-attr]
    if src.part is not None:
        cats += src.part.taxonomy(src)
    sections = [
        ("cast", "Cast", "Every recurring person: face anchor, identity, voice and wardrobe.",
         row(_fig(figs, "cast", "Cast contact sheet") + _people(src))),
        ("timeline", "Timeline", when[0], row(_fig(figs, "timeline", when[1]))),
        ("sources", "Sources", src_lead, src_body),
        ("gates", "Gates", kept, row(_fig(figs, "funnel", "Items left after each gate") + gate_table)),
        ("taxonomy", "Taxonomy", "How the kept questions spread.", ("" if has_xy else no_xy)
         + row(_fig(figs, "heatmap", "Question heatmap") + cats)),
        ("examples", "Example items", "A few kept questions per category with answer, cutoff and evidence "
         f"{ev_lead}.", examples_html or "<p>No kept questions.</p>"),
    ]  # fmt: skip
    from mnemoforge.evaluation.report_section import evaluation_section

    if (ev := evaluation_section(src.root)) is not None:
        sections.append(("evaluation", "Evaluation", *ev))
    out = [_header(src, title, description, [(sid, name) for sid, name, _, _ in sections])]
    for sid, name, lead, body in sections:
        out.append(f'<section id="{sid}"><h2>{name}</h2><p class="lead">{escape(lead)}</p>{body}</section>')
    code = src.meta.get("code_version", "?")
    foot = f"Written by mnemoforge report from {src.label} (code version {code})."
    return "".join(out) + f"</main><footer>{escape(foot)}</footer></body></html>\n"


def write_report(source: Path, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` (with ``figures/`` and ``media/``) for a run or release folder
    (a multi-family release: ``report_multi.write_multi_report``, which calls this per family)."""
    src = load_source(Path(source))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    theme = _theme(src.root)
    figs = _figures(src, theme, out_dir)
    index = out_dir / "index.html"
    write_text(index, _page(src, theme.title, theme.description or "", figs, _examples(src, out_dir)))
    return index
