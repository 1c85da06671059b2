"""The truth soak's PNG writer and plot (tests/bench/truth_png.py): valid files, drawn pixels."""

from __future__ import annotations

import struct
import zlib

from tests.bench import truth_png


def decode(png: bytes) -> tuple[int, int, bytes]:
    """Width, height and the raw scanlines of an 8-bit RGB PNG (checks every chunk's CRC)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + data)
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", data[:10])
            assert (depth, color) == (8, 2)
            size = (w, h)
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    assert len(raw) == size[1] * (1 + 3 * size[0])
    return size[0], size[1], raw


def pixel(raw: bytes, width: int, x: int, y: int) -> tuple[int, int, int]:
    start = y * (1 + 3 * width) + 1 + 3 * x
    r, g, b = raw[start : start + 3]
    return (r, g, b)


def test_a_canvas_writes_a_png_with_its_rectangles_and_text() -> None:
    c = truth_png.Canvas(40, 20)
    c.rect(2, 3, 5, 4, (10, 20, 30))
    c.rect(35, 15, 50, 50, (1, 2, 3))  # clipped, not an error
    end = c.text(0, 10, "A1", scale=1)
    w, h, raw = decode(c.png())
    assert (w, h) == (40, 20)
    assert pixel(raw, w, 2, 3) == (10, 20, 30) and pixel(raw, w, 6, 6) == (10, 20, 30)
    assert pixel(raw, w, 7, 3) == truth_png.WHITE
    assert pixel(raw, w, 39, 19) == (1, 2, 3)
    assert end == 12
    assert pixel(raw, w, 0, 11) == truth_png.BLACK  # the A's left leg


def test_the_plot_draws_every_agent_band_and_the_histogram() -> None:
    bands = [(0.0, 30.0, "running"), (30.0, 60.0, "succeeded")]
    png = truth_png.plot(
        "TITLE",
        [("claude 1", bands, bands, [(40.0, 45.0)]), ("*codex 2", bands, bands[:1], [])],
        60.0,
        {"hooked": [0.1, 0.2, 0.2, 5.0], "unhooked": []},
        notes=["NOTE"],
    )
    w, h, raw = decode(png)
    assert w == 1400 and h > 400
    running, succeeded = truth_png.COLORS["running"], truth_png.COLORS["succeeded"]
    assert pixel(raw, w, 171, 91) == running  # first agent's truth row, at the start
    assert pixel(raw, w, 1370, 91) == succeeded  # and at the end
    assert pixel(raw, w, 1370, 91 + 30 + 12) == truth_png.WHITE  # second agent's view ended
