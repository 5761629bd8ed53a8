"""Frames between the API process and its query workers (:mod:`kgsvc.api.worker`).

A frame: 4-byte big-endian header length, 8-byte body length, the JSON header, the body.
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

__all__ = ["HEADER", "read_frame", "write_frame"]

#: Frame prefix: header length, body length.
HEADER = struct.Struct(">IQ")


def write_frame(out: IO[bytes], header: dict[str, Any], body: bytes = b"") -> None:
    """Write one frame and flush it."""
    encoded = json.dumps(header).encode()
    out.write(HEADER.pack(len(encoded), len(body)) + encoded + body)
    out.flush()


def read_frame(inp: IO[bytes]) -> tuple[dict[str, Any], bytes] | None:
    """Read one frame; ``None`` at end of input."""
    prefix = _read_exactly(inp, HEADER.size)
    if prefix is None:
        return None
    header_size, body_size = HEADER.unpack(prefix)
    header = _read_exactly(inp, header_size)
    body = _read_exactly(inp, body_size) if body_size else b""
    if header is None or body is None:
        return None
    return json.loads(header), body


def _read_exactly(inp: IO[bytes], size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = inp.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data
