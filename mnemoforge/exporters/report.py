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
from dataclasses import dataclass
from functools import partial
from html import escape
from itertools import groupby
from pathlib import Path
from typing import Any

import yaml
from PIL import Image

from mnemoforge.backends.image.documents import render_bar_chart
from mnemoforge.backends.registry import image_backend
from mnemoforge.exporters import report_figures as rf
from mnemoforge.exporters.contact_sheet import contact_sheet
from mnemoforge.schemas.theme import RenderSpec, Theme
from mnemoforge.store.atomic import write_bytes, write_text
from mnemoforge.theme_io import ThemeError, load_theme

EXAMPLES_PER_CATEGORY = 3
Rec = dict[str, Any]


def _jsonl(path: Path) -> list[Rec]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _json(path: Path) -> Rec:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@dataclass
class Source:
    """What the report reads, the same for a run and a release; ``questions`` are the kept ones."""

    root: Path
    label: str
    meta: Rec
    world: Rec
    clips: list[Rec]
    observations: dict[str, Rec]
    questions: list[Rec]
    candidates: int
    funnel: Rec
    family: str

    @property
    def people(self) -> dict[str, Rec]:
        """People of the World by id, in cast order."""
        return {p["id"]: p for p in self.world.get("people", [])}


def load_source(source: Path) -> Source:
    """Read a release (``MANIFEST.json``) or run (``run.json``) folder into a :class:`Source`."""
    root = Path(source)
    if (root / "MANIFEST.json").is_file():
        meta = _json(root / "MANIFEST.json")
        family = str(meta.get("family", "icm"))
        data = root / "data" / family
        questions, funnel = _jsonl(data / "questions.jsonl"), _json(root / "gates" / "funnel.json")
        label = f"release {meta.get('name', '?')} {meta.get('version', '?')}"
        world, clips, obs = root / "data" / "world.json", data / "clips.jsonl", data / "observations.jsonl"
        candidates = int(funnel.get("candidates", len(questions)))
    elif (root / "run.json").is_file():
        meta = _json(root / "run.json")
        pool = _jsonl(root / "questions" / "candidates.jsonl")
        verdicts = _jsonl(root / "gates" / "verdicts.jsonl")
        rejected = {v["item"] for v in verdicts if not v["keep"]}
        judged = {v["item"] for v in verdicts}
        questions = [q for q in pool if q["id"] in judged and q["id"] not in rejected] if verdicts else pool
        family = str(pool[0]["family"]) if pool else "icm"
        funnel, label, candidates = _json(root / "gates" / "funnel.json"), f"run {root.name}", len(pool)
        world, clips = root / "world" / "world.json", root / "episodes" / "clips.jsonl"
        obs = root / "episodes" / "observations.jsonl"
    else:
        raise ValueError(f"{root}: neither a release (MANIFEST.json) nor a run folder (run.json)")
    w = _json(world)
    observations = {o["id"]: o for o in _jsonl(obs)}
    return Source(root, label, meta, w, _jsonl(clips), observations, questions, candidates, funnel, family)


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
        return Theme.model_validate(yaml.safe_load((root / "theme.yaml").read_text(encoding="utf-8")))


def _cast(theme: Theme) -> Image.Image:
    """The contact sheet with the theme's image backend, or the procedural one where it cannot load."""
    try:
        return contact_sheet(theme, image_backend(theme.render))
    except (ImportError, OSError, RuntimeError):
        return contact_sheet(theme, image_backend(RenderSpec()))


def _figures(src: Source, theme: Theme, out_dir: Path) -> dict[str, Rec]:
    """Draw every figure; returns name -> {src, width, height}."""
    w = src.world
    imgs = {"cast": _cast(theme)}
    rows = []
    for p in src.people.values():
        face = src.root / "media" / "anchors" / f"{p['id']}.png"
        with Image.open(face) if face.is_file() else nullcontext() as img:
            rows.append(rf.PersonRow(p["id"], p["name"], p.get("role", ""), img and img.convert("RGB")))
    start = dt.date.fromisoformat(w.get("start") or theme.start.isoformat())
    end = dt.date.fromisoformat(w.get("end") or theme.end.isoformat())
    imgs["timeline"] = rf.timeline_figure(rows, rf.clip_marks(src.clips), start, end)
    relations = {}
    for r in w.get("relations", []):
        relations[tuple(sorted((r["a"], r["b"])))] = r.get("a_calls_b") or r["kind"].replace("_", " ")
    pairs = rf.co_occurrence(src.clips)
    imgs["sources"] = rf.relation_graph(rows, relations, pairs, centre=w.get("protagonist"))
    places, why = [(p["id"], p["name"]) for p in w.get("places", [])], "Clips in which each person is there."
    imgs["sources_places"] = rf.presence_heatmap("Places x people", places, rows, src.clips, _places, why)
    kinds, why = [(a.id, a.noun) for a in theme.activities], "Clips in which each person takes part in it."
    events = {e["id"]: e["activity"] for e in w.get("events", [])}
    doing = partial(_activity, events)
    imgs["sources_activities"] = rf.presence_heatmap(
        "Activities x people", kinds, rows, src.clips, doing, why
    )
    stages = src.funnel.get("stages", [])
    labels = ["candidates", *(s["gate"].replace("_", " ") for s in stages)]
    values = [src.candidates, *(s["kept"] for s in stages)]
    imgs["funnel"] = render_bar_chart("Gate funnel: items left after each gate", labels, values, height=400)
    imgs["heatmap"] = rf.taxonomy_heatmap(src.questions)
    counts = Counter(q["category"] for q in src.questions)
    cats = sorted(counts) or ["(none)"]
    labels, values = [rf.category_name(c) for c in cats], [counts.get(c, 0) for c in cats]
    imgs["categories"] = render_bar_chart("Questions per category", labels, values)
    return {name: _save(out_dir, name, img) for name, img in imgs.items()}


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
    """Example items per category with their evidence stills copied to ``out_dir/media/shots``."""
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


CSS = """*{box-sizing:border-box}body{margin:0;background:#f3f1ec;color:#202124;font:15px/1.5 system-ui,
-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}header{background:#1f2a37;color:#fff;
padding:32px 40px 24px}h1{margin:0;font-size:30px}.sub{color:#c9d3df;margin:4px 0 10px}.desc{max-width:900px;
color:#e8edf3;margin:0 0 18px}.stats{display:flex;flex-wrap:wrap;gap:12px}.stat{background:#2c3b4d;
border-radius:10px;padding:10px 16px;min-width:120px}.stat b{display:block;font-size:24px}.stat span{
color:#b5c2d1;font-size:13px}nav{display:flex;flex-wrap:wrap;gap:8px;margin-top:18px}nav a{color:#fff;
text-decoration:none;background:#3b6ea5;border-radius:999px;padding:4px 14px;font-size:13px}main{
max-width:1320px;margin:0 auto;padding:20px 16px}section{background:#fff;border-radius:14px;padding:20px 22px;
margin:0 0 24px;box-shadow:0 1px 3px rgba(0,0,0,.08)}h2{margin:0 0 4px;font-size:22px}.lead{color:#5f6368;
margin:0 0 16px}.row{display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start}figure{margin:0;
max-width:100%}figure img{max-width:100%;height:auto;display:block;border:1px solid #e3e3e3;border-radius:8px}
figcaption{color:#5f6368;font-size:13px;margin-top:6px}.note{background:#fff4d6;border:1px solid #deaa3c;
border-radius:8px;padding:8px 12px;margin:0 0 14px}table{border-collapse:collapse;font-size:14px}td,th{
border-bottom:1px solid #e6e6e6;padding:5px 12px;text-align:left}th{background:#f6f7f9}td.n{text-align:right}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(350px,1fr));gap:16px;margin-bottom:18px}
.card{border:1px solid #e3e3e3;border-radius:10px;padding:14px 16px;background:#fcfcfb}.q{font-weight:600;
margin:0 0 8px}.ans{display:inline-block;background:#e6f4ea;color:#137333;border-radius:6px;padding:2px 10px;
font-weight:600}.meta{color:#5f6368;font-size:13px;margin:6px 0}.ev{display:flex;flex-wrap:wrap;gap:10px;
margin-top:8px}.ev figure{width:150px}.ev img{width:150px}.ev figcaption{font-size:12px;margin-top:3px}
blockquote{margin:4px 0 0;font-style:italic;font-size:12.5px;color:#3c4043}h3 small{color:#5f6368;
font-weight:400}footer{text-align:center;color:#80868b;font-size:12px;padding:0 0 30px}"""
MAX_EVIDENCE_SHOWN = 6


def _fig(figs: dict[str, Rec], name: str, caption: str) -> str:
    f = figs[name]
    return (
        f'<figure><img id="fig-{name}" src="{escape(f["src"])}" width="{f["width"]}" height="{f["height"]}" '
        f'alt="{escape(caption)}"><figcaption>{escape(caption)}</figcaption></figure>'
    )


def _table(head: list[str], rows: list[list[Any]]) -> str:
    """A small HTML table; numbers are right-aligned."""
    cell = lambda v: f'<td class="n">{v}</td>' if isinstance(v, int) else f"<td>{escape(str(v))}</td>"  # noqa: E731
    body = "".join("<tr>" + "".join(cell(v) for v in r) + "</tr>" for r in rows)
    return "<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + f"</tr>{body}</table>"


def _people(src: Source) -> str:
    """Who is who: relation to the protagonist, clips seen in, lines spoken, signature object."""
    me = src.world.get("protagonist")
    rel = {r["b"]: r.get("a_calls_b") or r["kind"] for r in src.world.get("relations", []) if r["a"] == me}
    rel |= {r["a"]: r["kind"] for r in src.world.get("relations", []) if r["b"] == me and r["a"] not in rel}
    marks = rf.clip_marks(src.clips)
    objects = {o["id"]: o["name"] for o in src.world.get("objects", [])}
    rows = [
        [p["name"], "protagonist" if pid == me else rel.get(pid, "-"),
         sum(pid in m.seen for m in marks), sum(pid in m.speakers for m in marks),
         objects.get(p.get("signature_object") or "", "-")]
        for pid, p in src.people.items()
    ]  # fmt: skip
    return _table(["person", "relation", "clips seen", "clips speaking", "signature object"], rows)


def _card(item: Rec) -> str:
    q, ev = item["q"], item["evidence"]
    html = [f'<div class="card"><p class="q">{escape(q["question"])}</p>']
    html.append(f'<span class="ans">{escape(str(q["answer"]))}</span>')
    if q.get("answer_aliases"):
        html.append(f' <span class="meta">also: {escape(", ".join(q["answer_aliases"]))}</span>')
    if q.get("options"):
        html.append(f'<div class="meta">options: {escape(" | ".join(map(str, q["options"])))}</div>')
    tpl = escape(q.get("lineage", {}).get("template", ""))
    meta = f"cutoff: {escape(item['cutoff'])} &middot; {len(ev)} evidence &middot; {tpl}"
    html.append(f'<div class="meta">{meta}</div><div class="ev">')
    for e in ev[:MAX_EVIDENCE_SHOWN]:
        alt = escape(e["id"])
        img = f'<img src="{escape(e["still"])}" width="320" height="180" alt="{alt}">' if e["still"] else ""
        cap = " &middot; ".join(
            escape(t) for t in (e["id"], "speech" if e["speech"] else "", e["when"], e["where"]) if t
        )
        said = f"<blockquote>&ldquo;{escape(e['text'])}&rdquo; &mdash; {escape(e['speaker'])}</blockquote>"
        html.append(f"<figure>{img}<figcaption>{cap}</figcaption>{said if e['speech'] else ''}</figure>")
    html.append("</div>")
    if len(ev) > MAX_EVIDENCE_SHOWN:
        rest = ", ".join(e["id"] for e in ev[MAX_EVIDENCE_SHOWN:])
        html.append(f'<div class="meta">+{len(ev) - MAX_EVIDENCE_SHOWN} more: {escape(rest)}</div>')
    return "".join(html) + "</div>"


def _header(src: Source, title: str, description: str, nav: list[tuple[str, str]]) -> str:
    shots = [s for c in src.clips for s in c["shots"]]
    stats = [
        (len(src.clips), "clips"),
        (f"{sum(s.get('duration_s', 0) for s in shots) / 60:.1f}", "minutes"),
        (len(shots), "shots"),
        (sum(len(s.get("dialogue", [])) for s in shots), "spoken lines"),
        (len(src.people), "people"),
        (f"{len(src.questions)} / {src.candidates}", "questions kept"),
    ]
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
        "heatmap shows category &times; number of distinct evidence clips instead.</p>"
    )
    examples_html = "".join(
        f'<h3 id="cat-{escape(c["id"])}">{escape(c["name"])} <small>{len(c["items"])} of {c["total"]}'
        f'</small></h3><div class="cards">{"".join(_card(i) for i in c["items"])}</div>'
        for c in examples
    )
    kept = f"{src.candidates} candidates; {len(src.questions)} kept after every gate."
    row = '<div class="row">{}</div>'.format
    places = _fig(figs, "sources_places", "Places x people") + _fig(
        figs, "sources_activities", "Activities x people"
    )
    cats = _fig(figs, "categories", "Kept questions per category")
    sections = [
        ("cast", "Cast", "Every recurring person: face anchor, identity, voice and wardrobe.",
         row(_fig(figs, "cast", "Cast contact sheet") + _people(src))),
        ("timeline", "Timeline", "When each person appears across the album.",
         row(_fig(figs, "timeline", "One row per person; a mark per clip they are seen in."))),
        ("sources", "Sources", "Who is seen with whom, and where.",
         row(_fig(figs, "sources", "Relations and shared clips") + places)),
        ("gates", "Gates", kept, row(_fig(figs, "funnel", "Items left after each gate") + gate_table)),
        ("taxonomy", "Taxonomy", "How the kept questions spread.", ("" if has_xy else no_xy)
         + row(_fig(figs, "heatmap", "Question heatmap") + cats)),
        ("examples", "Example items", "A few kept questions per category with answer, cutoff and evidence "
         "(shot stills; spoken lines quoted).", examples_html or "<p>No kept questions.</p>"),
    ]  # fmt: skip
    out = [_header(src, title, description, [(sid, name) for sid, name, _, _ in sections])]
    for sid, name, lead, body in sections:
        out.append(f'<section id="{sid}"><h2>{name}</h2><p class="lead">{escape(lead)}</p>{body}</section>')
    code = src.meta.get("code_version", "?")
    foot = f"Written by mnemoforge report from {src.label} (code version {code})."
    return "".join(out) + f"</main><footer>{escape(foot)}</footer></body></html>\n"


def write_report(source: Path, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` (with ``figures/`` and ``media/``) for a run or release folder."""
    src = load_source(Path(source))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    theme = _theme(src.root)
    figs = _figures(src, theme, out_dir)
    index = out_dir / "index.html"
    write_text(index, _page(src, theme.title, theme.description or "", figs, _examples(src, out_dir)))
    return index
