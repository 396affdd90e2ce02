"""HTML pieces of the report: the style sheet, figure and table markup, and example-item cards.

Every piece of text is escaped; images are relative links written by :mod:`report`.
"""

from __future__ import annotations

from html import escape
from typing import Any

Rec = dict[str, Any]

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
font-weight:400}pre{background:#f6f7f9;border-radius:6px;padding:6px 8px;font-size:12px;white-space:pre-wrap;
margin:6px 0}footer{text-align:center;color:#80868b;font-size:12px;padding:0 0 30px}"""
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


def _evidence(e: Rec) -> str:
    """One evidence figure: its still (shot or media image), a caption and the quoted text."""
    alt = escape(e["id"])
    w, h = e.get("size") or (320, 180)
    img = f'<img src="{escape(e["still"])}" width="{w}" height="{h}" alt="{alt}">' if e["still"] else ""
    cap = " &middot; ".join(
        escape(t) for t in (e["id"], "speech" if e["speech"] else "", e["when"], e["where"]) if t
    )
    said = ""
    if e["speech"]:
        said = f"<blockquote>&ldquo;{escape(e['text'])}&rdquo; &mdash; {escape(e['speaker'])}</blockquote>"
    elif e.get("quote"):
        said = f"<blockquote>{escape(e['quote'])}</blockquote>"
    return f"<figure>{img}<figcaption>{cap}</figcaption>{said}</figure>"


def _card(item: Rec) -> str:
    """One example item: question, answer (or the structured answer), meta lines and evidence."""
    q, ev = item["q"], item["evidence"]
    html = [f'<div class="card"><p class="q">{escape(q["question"])}</p>']
    if item.get("structured"):
        html.append(f'<span class="ans">tool calls</span><pre>{escape(item["structured"])}</pre>')
    else:
        html.append(f'<span class="ans">{escape(str(q["answer"]))}</span>')
    if q.get("answer_aliases"):
        html.append(f' <span class="meta">also: {escape(", ".join(q["answer_aliases"]))}</span>')
    if q.get("options"):
        html.append(f'<div class="meta">options: {escape(" | ".join(map(str, q["options"])))}</div>')
    tpl = escape(q.get("lineage", {}).get("template", ""))
    meta = f"cutoff: {escape(item['cutoff'])} &middot; {len(ev)} evidence &middot; {tpl}"
    html.append(f'<div class="meta">{meta}</div>')
    html.extend(f'<div class="meta">{escape(k)}: {escape(v)}</div>' for k, v in item.get("extra", []))
    html.append('<div class="ev">')
    html.extend(_evidence(e) for e in ev[:MAX_EVIDENCE_SHOWN])
    html.append("</div>")
    if len(ev) > MAX_EVIDENCE_SHOWN:
        rest = ", ".join(e["id"] for e in ev[MAX_EVIDENCE_SHOWN:])
        html.append(f'<div class="meta">+{len(ev) - MAX_EVIDENCE_SHOWN} more: {escape(rest)}</div>')
    return "".join(html) + "</div>"
