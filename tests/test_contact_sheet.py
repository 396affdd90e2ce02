from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.theme_io import DEFAULT_THEME, load_theme


def test_cast_command_draws_one_distinct_row_per_person(tmp_path: Path) -> None:
    out = tmp_path / "cast.png"
    r = CliRunner().invoke(app, ["cast", str(DEFAULT_THEME), "--out", str(out)])
    assert r.exit_code == 0, r.output
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    theme = load_theme(DEFAULT_THEME)
    assert img.shape[0] == 12 + 34 + 172 * len(theme.cast)
    portraits = [img[46 + i * 172 : 46 + i * 172 + 160, 12:172] for i in range(len(theme.cast))]
    for i in range(len(portraits)):
        for j in range(i + 1, len(portraits)):
            assert np.abs(portraits[i] - portraits[j]).mean() > 15  # different people look different
    # each person's signature top colour shows up in their row
    for i, p in enumerate(theme.cast):
        rgb = np.array([int(p.appearance.signature_outfit.top_color[k : k + 2], 16) for k in (1, 3, 5)])
        row = img[46 + i * 172 : 46 + i * 172 + 160]
        assert (np.abs(row - rgb).sum(axis=2) < 30).mean() > 0.02
