"""Exporters that turn a release into peer benchmarks' formats, so their harnesses run on it.

``export_release(release_dir, fmt, out_dir)`` writes one format into ``out_dir``:

* ``locomo``  — LoCoMo conversation JSON (:mod:`.locomo`)
* ``m3bench`` — M3-Bench video QA annotations + clips for M3-Agent (:mod:`.m3bench`)
* ``memeye``  — MemEye / Mem-Gallery dialog JSON + images, registered by the memeye family
  (``generators/memeye/peer_format.py``: album releases mapped onto rounds by ``peer_album``,
  visual-chat releases natively, one task per scenario, by ``peer_native``)

Album releases (family ``icm``) export to every format; visual-chat releases (``memeye``) only
to ``memeye``; source-distributed chats (``smm``) to none (``PeerFormat.families``; any other pair
is refused with an ExportError naming the formats that do take the release). Formats are
registrations of the ``mnemoforge.exporters`` entry-point group (:func:`formats`; the built-ins in
:mod:`.formats` and the memeye family's), so an installed package adds one for its own family.

Every file is written atomically (media are hard-linked, or copied across filesystems). The
folder is claimed by ``mnemoforge_export.json`` (format, source release, files written, and the
join table from peer question keys to mnemoforge ids and cutoffs). A non-empty ``out_dir`` is
refused unless it holds a previous export of the same format (or, for ``m3bench``, is an M3-Agent
checkout's root without this release's paths: the export is laid out as its ``data/``);
re-exporting there replaces it and removes files the previous export wrote that the new one does
not. Each module documents its
category mapping in a constant and its docstring, and has a reader (``read_<fmt>``) that maps an
export back to mnemoforge terms (:class:`PeerItem`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mnemoforge import registry
from mnemoforge.exporters.peers import m3bench
from mnemoforge.exporters.peers.common import (
    MARKER,
    ExportError,
    PeerItem,
    load_json,
    read_manifest,
    readable,
)
from mnemoforge.exporters.peers.formats import PeerFormat, Reader
from mnemoforge.store.atomic import write_json

__all__ = [
    "MARKER",
    "ExportError",
    "PeerFormat",
    "PeerItem",
    "export_release",
    "formats",
    "readers",
]


def formats() -> dict[str, PeerFormat]:
    """Every registered peer format by name (``mnemoforge.exporters``: the built-ins of
    ``exporters/peers/formats.py`` and any installed package's)."""
    return {n: registry.load(registry.EXPORTERS_GROUP, n) for n in registry.names(registry.EXPORTERS_GROUP)}


def readers() -> dict[str, Reader]:
    """Each format's reader, which maps an export back to mnemoforge terms."""
    return {n: f.read for n, f in formats().items()}


def is_m3_checkout(folder: Path) -> bool:
    """Whether ``folder`` is an M3-Agent checkout's root (the M3-Bench export may go there)."""
    return (folder / "m3_agent").is_dir() and (folder / "mmagent").is_dir()


def _claim(out_dir: Path, fmt: str, release_dir: Path) -> list[str]:
    """Check ``out_dir`` may take this export; returns the files a previous export wrote."""
    if out_dir.resolve().is_relative_to(release_dir.resolve()):
        raise ExportError(f"{out_dir}: inside the release {release_dir}; releases are never modified")
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(f"{out_dir}: exists and is not a folder")
    if not out_dir.exists() or not any(out_dir.iterdir()):
        return []
    marker = out_dir / MARKER
    if not marker.is_file() and fmt == "m3bench" and is_m3_checkout(out_dir):
        name = str(read_manifest(release_dir)["name"])
        taken = [p for p in m3bench.layout(name).values() if (out_dir / p).exists()]
        if taken:
            raise ExportError(f"{out_dir}: an M3-Agent checkout that already has {', '.join(taken)}")
        return []
    if not marker.is_file():
        raise ExportError(f"{out_dir}: not empty and not a previous export; choose an empty or new folder")
    previous = load_json(marker)
    if not isinstance(previous, dict) or previous.get("format") != fmt:
        other = previous.get("format") if isinstance(previous, dict) else None
        raise ExportError(f"{out_dir}: holds a {other!r} export, not {fmt!r}; choose another folder")
    return [str(f) for f in previous.get("files", [])]


def _refusal(release_dir: Path, fmt: PeerFormat, fam: str) -> ExportError:
    """The error for a release whose family ``fmt`` does not take, naming what does."""
    takers = [f.name for f in formats().values() if fam in f.families]
    hint = (
        f"export it with --format {' or '.join(takers)}"
        if takers
        else f"no peer format maps it: its tables under data/{fam}/ are its native format"
    )
    wanted = " or ".join(fmt.families)
    return ExportError(
        f"{release_dir}: {fmt.name} exports take releases of family {wanted}; "
        f"this release is family {fam!r} ({hint})"
    )


def export_release(
    release_dir: Path,
    fmt: str,
    out_dir: Path,
    *,
    base_url: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Path]:
    """Export the release at ``release_dir`` as ``fmt`` into ``out_dir``; returns the files written.

    ``base_url`` (LoCoMo) is the URL the image turns' ``img_url`` start with (default: the export
    folder as a ``file://`` URL). ``warn`` receives one line per shortfall (items a format could
    not hold; they are listed in ``mnemoforge_export.json``)."""
    known = formats()
    if fmt not in known:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(sorted(known))}")
    release_dir, out_dir = Path(release_dir), Path(out_dir)
    manifest = read_manifest(release_dir)
    fam = str(manifest.get("family", registry.DEFAULT_FAMILY))
    if fam not in known[fmt].families:
        raise _refusal(release_dir, known[fmt], fam)
    run: Callable[[Path], tuple[list[Path], list[dict], dict]] = lambda out: known[fmt].write(  # noqa: E731
        release_dir, out, base_url
    )
    previous = _claim(out_dir, fmt, release_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    head = {"format": fmt, "release": {"name": manifest["name"], "version": manifest["version"]}}
    write_json(out_dir / MARKER, {**head, "complete": False, "files": previous, "items": []})
    files, items, extra = run(out_dir)
    written = sorted({p.relative_to(out_dir).as_posix() for p in files})
    root = out_dir.resolve()
    for rel_path in sorted(set(previous) - set(written) - {MARKER}):
        stale = out_dir / rel_path
        if stale.resolve().is_relative_to(root) and stale.is_file():
            stale.unlink()
    marker = write_json(
        out_dir / MARKER, {**head, **extra, "complete": True, "files": written, "items": items}
    )
    readable(marker)
    if warn is not None and extra.get("warning"):
        warn(f"{fmt}: {extra['warning']}")
    return [out_dir / p for p in written] + [marker]
