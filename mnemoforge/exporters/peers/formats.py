"""The peer formats of album releases as registrations of the ``mnemoforge.exporters`` entry-point
group (LoCoMo, M3-Bench); the MemEye format is the memeye family's (``generators/memeye/peer_format.py``).

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

from mnemoforge.exporters.peers.common import ALBUM, PeerItem, load_release
from mnemoforge.exporters.peers.locomo import export_locomo, read_locomo
from mnemoforge.exporters.peers.m3bench import export_m3bench, read_m3bench

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


LOCOMO = PeerFormat(
    "locomo", (ALBUM,), lambda rel, out, base_url: export_locomo(load_release(rel), out, base_url=base_url),
    read_locomo,
)  # fmt: skip
M3BENCH = PeerFormat(
    "m3bench", (ALBUM,), lambda rel, out, _url: export_m3bench(load_release(rel), out), read_m3bench
)
