"""A pen that draws Pillow shapes given in head units, for the cartoon people."""

from __future__ import annotations

from PIL import ImageDraw

from mnemoforge.backends.image.colors import RGB


class _Pen:
    """Draws shapes given in head units relative to (cx, top)."""

    def __init__(self, draw: ImageDraw.ImageDraw, cx: float, top: float, u: float) -> None:
        self.d, self.cx, self.top, self.u = draw, cx, top, u

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return (self.cx + x * self.u, self.top + y * self.u)

    def bx(self, x0: float, y0: float, x1: float, y1: float) -> list[float]:
        u = self.u
        return [self.cx + x0 * u, self.top + y0 * u, self.cx + x1 * u, self.top + y1 * u]

    def ell(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        fill: RGB | None,
        outline: RGB | None = None,
        w: float = 0.0,
    ) -> None:
        self.d.ellipse(self.bx(x0, y0, x1, y1), fill=fill, outline=outline, width=self.px(w))

    def circ(self, x: float, y: float, r: float, fill: RGB) -> None:
        self.ell(x - r, y - r, x + r, y + r, fill)

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: RGB, r: float = 0.0) -> None:
        if r > 0 and self.u * r >= 1:
            self.d.rounded_rectangle(self.bx(x0, y0, x1, y1), radius=self.u * r, fill=fill)
        else:
            self.d.rectangle(self.bx(x0, y0, x1, y1), fill=fill)

    def poly(self, pts: list[tuple[float, float]], fill: RGB) -> None:
        self.d.polygon([self.pt(x, y) for x, y in pts], fill=fill)

    def line(self, pts: list[tuple[float, float]], fill: RGB, w: float) -> None:
        self.d.line([self.pt(x, y) for x, y in pts], fill=fill, width=self.px(w), joint="curve")

    def chord(self, b: tuple[float, float, float, float], start: float, end: float, fill: RGB) -> None:
        self.d.chord(self.bx(*b), start, end, fill=fill)

    def px(self, w: float) -> int:
        return max(1, round(w * self.u)) if w > 0 else 0
