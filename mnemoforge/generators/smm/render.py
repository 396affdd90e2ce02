"""Render the smm attachments (tables, documents, chat and calendar screenshots, profile cards,
phone photos of whiteboards and sticky notes, filler items) with the document renderers, and
write ``media/index.jsonl``.

Profile cards show the person's procedural face (the same face anchor the other families draw).
Every image is a pure function of its spec, so re-rendering gives identical bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFilter

from mnemoforge.backends.image import documents as docs
from mnemoforge.backends.image.documents_base import font, sanitize
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.smm.filler import SmmBanks, banks
from mnemoforge.hashing import sha256_bytes
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout

ATTACHMENTS = "episodes/smm_attachments.jsonl"


def photo(title: str, lines: list[str], seed: int) -> Image.Image:
    """A phone photo of a whiteboard or sticky note: marker text on a board, slightly tilted,
    on a wall, with sensor noise (deterministic in ``seed``)."""
    rng = derive_rng(seed, "photo")
    note = title.lower().startswith("sticky")
    board = Image.new("RGB", (360, 240) if note else (520, 320), (250, 236, 120) if note else (246, 246, 242))
    draw = ImageDraw.Draw(board)
    ink = rng.choice([(25, 60, 160), (30, 30, 30), (160, 30, 30)])
    y = 24
    for i, line in enumerate(lines):
        size = 30 if i == 0 else 26
        draw.text((24 + rng.randint(-4, 4), y), sanitize(line), fill=ink, font=font(size, sanitize(line)))
        y += size + 22
    board = board.rotate(rng.uniform(-6, 6), expand=True, fillcolor=(0, 0, 0, 0), resample=Image.BICUBIC)
    wall = Image.new(
        "RGB", (board.width + 80, board.height + 80), rng.choice([(188, 178, 160), (150, 160, 170)])
    )
    mask = board.convert("L").point(lambda v: 255 if v > 8 else 0)  # the rotated board's corners
    wall.paste(board, (40, 40), mask)
    noise = Image.frombytes("L", wall.size, rng.randbytes(wall.width * wall.height)).convert("RGB")
    return Image.blend(wall, noise, 0.06).filter(ImageFilter.GaussianBlur(0.6))


def email(sender: str, to: str, subject: str, date: str, body: list[str]) -> Image.Image:
    """An email as a mail client shows it: subject, a From / To / Date header, then the body."""
    header = [f"From: {sender}", f"To: {to}", f"Date: {date}"]
    return docs.render_document_page(subject, [*header, "# Message", *body], width=560)


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=3)
    return buf.getvalue()


def _avatar(theme: Theme, person: str) -> Image.Image:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend

    return ProceduralImageBackend(supersample=1).portrait(theme.person(person).appearance, size=128)


def draw(theme: Theme, spec: dict[str, Any]) -> Image.Image:
    """The image of one attachment spec."""
    kind = spec["kind"]
    if kind == "table":
        return docs.render_table(spec["title"], spec["columns"], spec["rows"])
    if kind == "document":
        return docs.render_document_page(spec["title"], spec["blocks"], spec.get("footer"), width=560)
    if kind == "calendar":
        entries = [
            docs.CalendarEntry(dt.date.fromisoformat(e["date"]), e["start"], e["end"], e["title"])
            for e in spec["entries"]
        ]
        return docs.render_calendar_screenshot(
            spec["owner"], dt.date.fromisoformat(spec["week_start"]), entries
        )
    if kind == "chat_screenshot":
        msgs = [docs.ChatMessage(m["sender"], m["text"], m["time"], m["outgoing"]) for m in spec["messages"]]
        return docs.render_chat_screenshot(spec["title"], msgs, group=True)
    if kind == "profile_card":
        return docs.render_profile_card(
            spec["name"], spec["fields"], avatar=_avatar(theme, spec["person"]), subtitle=spec["subtitle"]
        )
    if kind == "photo":
        return photo(spec["title"], spec["lines"], spec["seed"])
    if kind == "email":
        return email(spec["sender"], spec["to"], spec["subject"], spec["date"], spec["body"])
    if kind == "filler":
        return _filler(banks(theme), spec)
    raise ValueError(f"unknown attachment kind {kind!r}")


def filler_content(bk: SmmBanks, spec: dict[str, Any]) -> dict[str, Any]:
    """What a filler item shows (title, and rows, blocks, lines or messages), from the theme's
    banks: its pack, else its own nouns. Deterministic in the spec's seed."""
    rng = derive_rng(spec["seed"], "filler")
    title = spec["title"]
    if spec["source_kind"] == "spreadsheet":
        rows = [list(r) for r in bk.filler_rows.get(title, ())] or [[title, "-"]]
        rng.shuffle(rows)
        return {"title": title, "columns": ["Item", "Status"], "rows": rows}
    if spec["source_kind"] == "email":
        body = list(bk.filler_docs.get(title, ())) or [title]
        return {"email": (spec.get("sender", ""), spec.get("to", ""), title, spec.get("date", ""), body)}
    if spec["source_kind"] == "documents":
        return {"title": title, "blocks": list(bk.filler_docs.get(title, ())) or [title]}
    if spec["source_kind"] == "images":
        return {"title": title, "lines": list(rng.choice(bk.photo_notes)) if bk.photo_notes else [title]}
    text = rng.choice(bk.chat_lines)
    reply = rng.choice(bk.chat_replies)
    sender = spec.get("sender", bk.chat_title)
    messages = [(sender, text, "12:01", False), ("Me", reply, "12:03", True)]
    return {"title": bk.chat_title, "messages": messages}


def _filler(bk: SmmBanks, spec: dict[str, Any]) -> Image.Image:
    c = filler_content(bk, spec)
    if "email" in c:
        return email(*c["email"])
    if "rows" in c:
        return docs.render_table(c["title"], c["columns"], c["rows"])
    if "blocks" in c:
        return docs.render_document_page(c["title"], c["blocks"], width=560)
    if "lines" in c:
        return photo(c["title"], c["lines"], spec["seed"])
    msgs = [docs.ChatMessage(who, text, at, out) for who, text, at, out in c["messages"]]
    return docs.render_chat_screenshot(c["title"], msgs)


def _render_one(args: tuple[Theme, dict[str, Any], str]) -> tuple[str, int, int, bytes]:
    theme, row, root = args
    img = draw(theme, row["spec"])
    data = _png(img)
    atomic.write_bytes(Path(root) / row["path"], data)
    return row["path"], img.width, img.height, data


def render_run(
    theme: Theme, world: World, run: RunLayout, workers: int, on_progress: Any = None
) -> list[Path]:
    """Render every attachment of the run (in ``workers`` processes) and write the media index."""
    rows = read_jsonl(run.root / ATTACHMENTS)
    jobs = [(theme, r, str(run.root)) for r in rows]
    results = []
    if workers > 1 and len(jobs) > 8:
        # spawn, never fork: the build runs inside Prefect's multi-threaded process, and a forked
        # child inherits locks other threads held at the fork (the icm renderer spawns too)
        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
            for i, res in enumerate(pool.map(_render_one, jobs, chunksize=8)):
                results.append(res)
                if on_progress:
                    on_progress(i + 1, len(jobs))
    else:
        for i, job in enumerate(jobs):
            results.append(_render_one(job))
            if on_progress:
                on_progress(i + 1, len(jobs))
    index = [
        {
            "path": path,
            "kind": row["spec"].get("as", row["spec"]["kind"]),  # fillers list as what they look like
            "bytes": len(data),
            "sha256": sha256_bytes(data),
            "width": w,
            "height": h,
            "observation": row["observation"],
            "source": row["source"],
        }
        for row, (path, w, h, data) in zip(rows, results, strict=True)
    ]
    atomic.write_jsonl(run.media_index, index)
    return [run.root / r["path"] for r in rows] + [run.media_index]
