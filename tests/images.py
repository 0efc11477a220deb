"""Real image files made in code, for the tests of media: uploads, imports and exports."""

import struct
import zlib


def png(width: int = 1, height: int = 1, seed: int = 0) -> bytes:
    """A real PNG of one colour: `seed` changes the colour, so the bytes differ."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    row = b"\x00" + bytes([seed % 256, 0, 0]) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )
