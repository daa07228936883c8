"""Just enough PNG decoding to look at a browser screenshot's pixels (8-bit RGB or RGBA, not interlaced)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def pixels(path: Path) -> tuple[int, int, list[bytearray], int]:
    """(width, height, rows of raw bytes, bytes per pixel) of a PNG file."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], None
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + size
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and not interlace, header
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up, corner = previous[x], previous[x - bpp] if x >= bpp else 0
            line[x] = (line[x] + (0, left, up, (left + up) // 2, _paeth(left, up, corner))[kind]) & 0xFF
        rows.append(line)
        previous = line
    return width, height, rows, bpp


def first_row_with(path: Path, rgb: tuple[int, int, int]) -> int | None:
    """The first row (from the top) holding a pixel of colour `rgb`, or None."""
    width, _, rows, bpp = pixels(path)
    want = bytes(rgb)
    for y, line in enumerate(rows):
        if any(line[x * bpp:x * bpp + 3] == want for x in range(0, width, 4)):
            return y
    return None
