"""A small PNG writer and the truth soak's plot (stdlib only: zlib + struct).

A raster canvas with filled rectangles and text in a 5×7 bitmap font is all the plot needs:
states against truth over time as coloured bands, and the lag distribution as bars.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

RGB = tuple[int, int, int]

# 5×7 glyphs, one int per row, the high bit (16) the leftmost pixel. Lower case is drawn as upper.
_FONT: dict[str, tuple[int, ...]] = {
    "A": (14, 17, 17, 31, 17, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14), "D": (30, 17, 17, 17, 17, 17, 30),
    "E": (31, 16, 16, 30, 16, 16, 31), "F": (31, 16, 16, 30, 16, 16, 16),
    "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17),
    "I": (14, 4, 4, 4, 4, 4, 14), "J": (7, 2, 2, 2, 2, 18, 12),
    "K": (17, 18, 20, 24, 20, 18, 17), "L": (16, 16, 16, 16, 16, 16, 31),
    "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14), "P": (30, 17, 17, 30, 16, 16, 16),
    "Q": (14, 17, 17, 17, 21, 18, 13), "R": (30, 17, 17, 30, 20, 18, 17),
    "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4),
    "U": (17, 17, 17, 17, 17, 17, 14), "V": (17, 17, 17, 17, 17, 10, 4),
    "W": (17, 17, 17, 21, 21, 21, 10), "X": (17, 17, 10, 4, 10, 17, 17),
    "Y": (17, 17, 10, 4, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14),
    "2": (14, 17, 1, 2, 4, 8, 31), "3": (31, 2, 4, 2, 1, 17, 14),
    "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8),
    "8": (14, 17, 17, 14, 17, 17, 14), "9": (14, 17, 17, 15, 1, 2, 12),
    ".": (0, 0, 0, 0, 0, 12, 12), ",": (0, 0, 0, 0, 12, 4, 8),
    "-": (0, 0, 0, 31, 0, 0, 0), "_": (0, 0, 0, 0, 0, 0, 31),
    ":": (0, 12, 12, 0, 12, 12, 0), "%": (24, 25, 2, 4, 8, 19, 3),
    "/": (0, 1, 2, 4, 8, 16, 0), "(": (2, 4, 8, 8, 8, 4, 2), ")": (8, 4, 2, 2, 2, 4, 8),
    "<": (2, 4, 8, 16, 8, 4, 2), ">": (8, 4, 2, 1, 2, 4, 8), "=": (0, 0, 31, 0, 31, 0, 0),
    "+": (0, 4, 4, 31, 4, 4, 0), "*": (0, 21, 14, 31, 14, 21, 0), "#": (10, 10, 31, 10, 31, 10, 10), " ": (0,) * 7,
}  # fmt: skip

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
GREY: RGB = (150, 150, 150)


class Canvas:
    """An RGB raster, origin top left."""

    def __init__(self, width: int, height: int, background: RGB = WHITE) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(background) * (width * height))

    def rect(self, x: int, y: int, w: int, h: int, color: RGB) -> None:
        """Fill ``w``×``h`` at (x, y), clipped to the canvas."""
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + w), min(self.height, y + h)
        if x1 <= x0 or y1 <= y0:
            return
        row = bytes(color) * (x1 - x0)
        for yy in range(y0, y1):
            start = (yy * self.width + x0) * 3
            self.pixels[start : start + len(row)] = row

    def text(self, x: int, y: int, text: str, color: RGB = BLACK, scale: int = 2) -> int:
        """Draw ``text``; returns the x after it. Unknown characters draw as ``#``."""
        for ch in text.upper():
            glyph = _FONT.get(ch, _FONT["#"])
            for gy, bits in enumerate(glyph):
                for gx in range(5):
                    if bits & (16 >> gx):
                        self.rect(x + gx * scale, y + gy * scale, scale, scale, color)
            x += 6 * scale
        return x

    def png(self) -> bytes:
        """The canvas as a PNG file (8-bit RGB, no filter)."""
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * stride : (y + 1) * stride]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b"")
        )


#: A colour per state, truth and mytty's alike.
COLORS: dict[str, RGB] = {
    "starting": (200, 200, 200), "launching": (200, 200, 200), "idle": (170, 170, 170),
    "running": (60, 170, 75), "waiting-approval": (245, 130, 48), "waiting-input": (230, 200, 20),
    "succeeded": (67, 99, 216), "failed": (220, 40, 40), "interrupted": (70, 200, 220),
    "exited": (30, 50, 140), "crashed": (128, 0, 0), "killed": (0, 0, 0), "lost": (0, 0, 0),
    "absent": (60, 60, 60), "disconnected": (145, 30, 180), "gone": (110, 110, 110),
    "queued": (240, 50, 230),
}  # fmt: skip

Band = tuple[float, float, str]  # start, end (seconds from the run's start), state


def _band_row(
    c: Canvas, y: int, h: int, bands: Sequence[Band], x0: int, w: int, span: float
) -> None:
    for start, end, state in bands:
        left = x0 + int(w * start / span)
        right = x0 + int(w * end / span)
        c.rect(left, y, max(1, right - left), h, COLORS.get(state, (255, 0, 255)))


def plot(
    title: str,
    agents: Sequence[tuple[str, Sequence[Band], Sequence[Band], Sequence[tuple[float, float]]]],
    span: float,
    lags: dict[str, Sequence[float]],
    notes: Sequence[str] = (),
) -> bytes:
    """The soak's picture. ``agents``: (label, truth bands, mytty bands, wrong intervals);
    ``lags``: a name → lag seconds for each group (hooked, unhooked)."""
    width, left, right = 1400, 170, 20
    plot_w = width - left - right
    row_h = 30
    hist_top = 90 + len(agents) * row_h + 60
    c = Canvas(width, hist_top + 330 + 16 * len(notes))
    c.text(10, 10, title, scale=2)
    c.text(10, 36, "EACH AGENT: TRUTH (TOP) / MYTTY (BELOW), RED: WRONG PAST THE ALLOWANCE", GREY)
    _legend(c, 10, 58)
    top = 90
    for i, (label, truth, shown, wrong) in enumerate(agents):
        y = top + i * row_h
        c.text(10, y + 6, label[:13], scale=2)
        _band_row(c, y, 11, truth, left, plot_w, span)
        _band_row(c, y + 12, 11, shown, left, plot_w, span)
        _band_row(c, y + 24, 3, [(a, b, "failed") for a, b in wrong], left, plot_w, span)
    axis_y = top + len(agents) * row_h + 4
    c.rect(left, axis_y, plot_w, 1, BLACK)
    for k in range(11):
        x = left + plot_w * k // 10
        c.rect(x, axis_y, 1, 6, BLACK)
        c.text(x - 12, axis_y + 10, f"{span * k / 10 / 60:.1f}M", scale=1)
    _histogram(c, left, hist_top, plot_w, 260, lags)
    for i, note in enumerate(notes):
        c.text(10, hist_top + 320 + 16 * i, note, scale=1)
    return c.png()


def _legend(c: Canvas, x: int, y: int) -> None:
    names = ["starting", "running", "waiting-approval", "waiting-input", "succeeded", "failed",
             "idle", "interrupted", "exited", "crashed", "lost", "disconnected", "gone",
             "queued"]  # fmt: skip
    for name in names:
        c.rect(x, y, 12, 12, COLORS[name])
        x = c.text(x + 16, y + 3, name, scale=1) + 12


_HIST_COLORS: tuple[RGB, ...] = ((67, 99, 216), (245, 130, 48), (60, 170, 75))


def _histogram(
    c: Canvas, x0: int, y0: int, w: int, h: int, lags: dict[str, Sequence[float]]
) -> None:
    """Lag bars in 0.1 s bins to 3 s (the last bin holds everything longer), a share of each
    group's transitions; groups side by side in each bin."""
    bins = 31
    c.text(x0 - 160, y0, "LAG", scale=2)
    c.text(x0 - 160, y0 + 20, "SHARE OF", scale=1)
    c.text(x0 - 160, y0 + 32, "TRANSITIONS", scale=1)
    shares: list[list[float]] = []
    for values in lags.values():
        counts = [0] * bins
        for v in values:
            counts[min(bins - 1, max(0, int(v * 10)))] += 1
        total = max(1, len(values))
        shares.append([n / total for n in counts])
    top = max([max(s) for s in shares if s] + [0.01])
    bin_w = w // bins
    bar_w = max(1, (bin_w - 2) // max(1, len(shares)))
    for gi, group in enumerate(shares):
        color = _HIST_COLORS[gi % len(_HIST_COLORS)]
        for b, share in enumerate(group):
            bar_h = int(h * share / top)
            c.rect(x0 + b * bin_w + gi * bar_w, y0 + h - bar_h, bar_w, bar_h, color)
    c.rect(x0, y0 + h, w, 1, BLACK)
    for b in range(0, bins, 5):
        label = f"{b / 10:.1f}S" if b < bins - 1 else ">3S"
        c.text(x0 + b * bin_w, y0 + h + 6, label, scale=1)
    c.text(x0 + (bins - 1) * bin_w, y0 + h + 6, ">3S", scale=1)
    c.text(x0, y0 - 14, f"TOP BAR = {100 * top:.0f}%", scale=1)
    x = x0 + 200
    for gi, name in enumerate(lags):
        c.rect(x, y0 - 16, 12, 12, _HIST_COLORS[gi % len(_HIST_COLORS)])
        x = c.text(x + 16, y0 - 13, f"{name} ({len(lags[name])})", scale=1) + 16
