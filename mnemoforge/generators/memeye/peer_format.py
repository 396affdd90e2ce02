"""The MemEye peer format (``mnemoforge export --format memeye``), registered by this family in the
``mnemoforge.exporters`` entry-point group: MemEye is the benchmark this family is modelled on.

It takes the family's own visual-chat releases, exported natively (``peer_native``: one task per
scenario), and album releases of the default family, mapped onto rounds and X/Y points
(``peer_album``).
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters.peers.common import ALBUM, PeerItem, load_release, release_family
from mnemoforge.exporters.peers.formats import PeerFormat
from mnemoforge.generators.memeye.peer_album import FORMAT, export_memeye, read_memeye_album
from mnemoforge.generators.memeye.peer_native import FAMILY as VISUAL_CHATS
from mnemoforge.generators.memeye.peer_native import (
    export_memeye_native,
    load_visual_release,
    read_memeye_native,
)


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


MEMEYE = PeerFormat(FORMAT, (ALBUM, VISUAL_CHATS), _memeye_write, read_memeye)
