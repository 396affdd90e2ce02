"""The built-in peer formats as registrations of the ``mnemoforge.exporters`` entry-point group.

A ``PeerFormat`` names the release families it takes, writes an export and reads one back. The
built-ins register in mnemoforge's ``pyproject.toml`` (``mnemoforge/registry.py``); an installed
package adds a format for its own family the same way (``tests/plugin_family/``), and
``exporters.peers.export_release`` runs any of them with the same folder claim, marker and
stale-file cleanup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mnemoforge.exporters.peers.common import ALBUM, PeerItem, load_release, release_family
from mnemoforge.exporters.peers.locomo import export_locomo, read_locomo
from mnemoforge.exporters.peers.m3bench import export_m3bench, read_m3bench
from mnemoforge.exporters.peers.memeye import export_memeye, read_memeye_album
from mnemoforge.exporters.peers.memeye_native import FAMILY as VISUAL_CHATS
from mnemoforge.exporters.peers.memeye_native import (
    export_memeye_native,
    load_visual_release,
    read_memeye_native,
)

# (release folder, export folder, base URL of image links or None)
#   -> (files written, marker items, extra marker fields)
Writer = Callable[[Path, Path, str | None], tuple[list[Path], list[dict], dict]]
Reader = Callable[[Path, Path], list[PeerItem]]


@dataclass(frozen=True)
class PeerFormat:
    """A peer benchmark's format: the release families it takes, its writer and its reader."""

    name: str
    families: tuple[str, ...]
    write: Writer
    read: Reader


def _memeye_write(release_dir: Path, out: Path, base_url: str | None) -> tuple[list[Path], list[dict], dict]:
    if release_family(release_dir) == VISUAL_CHATS:  # a visual-chat release exports natively
        return export_memeye_native(load_visual_release(release_dir), out)
    return export_memeye(load_release(release_dir), out)


def read_memeye(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read a MemEye export back: a visual-chat release through ``read_memeye_native``, an album
    release through ``read_memeye_album``."""
    if release_family(release_dir) == VISUAL_CHATS:
        return read_memeye_native(export_dir, release_dir)
    return read_memeye_album(export_dir, release_dir)


LOCOMO = PeerFormat(
    "locomo", (ALBUM,), lambda rel, out, base_url: export_locomo(load_release(rel), out, base_url=base_url),
    read_locomo,
)  # fmt: skip
M3BENCH = PeerFormat(
    "m3bench", (ALBUM,), lambda rel, out, _url: export_m3bench(load_release(rel), out), read_m3bench
)
MEMEYE = PeerFormat("memeye", (ALBUM, VISUAL_CHATS), _memeye_write, read_memeye)
