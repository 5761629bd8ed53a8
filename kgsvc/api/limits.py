"""Request body limits: a body over its limit is a 413 before it is read, or as soon as it grows past the limit.

Two limits (settings), chosen by route:

| route | limit |
|-------|-------|
| ``POST /datasets`` (upload) and ``PUT``/``POST /datasets/{name}/store`` (Graph Store writes) | ``max_upload_bytes`` |
| every other request body (SPARQL query/update, JSON) | ``max_body_bytes`` |

A declared ``Content-Length`` over the limit is answered at once, before the route runs — before the token is
checked and before a byte of the body is read. A body without a length (chunked) is counted while it streams
(:func:`limit_receive`), and reading stops with a 413 at the first chunk past the limit. Uploads are limited once
more after decompression (:mod:`kgsvc.api.json_api`, a gzip bomb is a 413).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path

from starlette.types import Message, Receive, Scope

from kgsvc.api.errors import ApiError
from kgsvc.settings import Settings

__all__ = [
    "ASK_BOUNDS",
    "RATIO_FLOOR",
    "Inflater",
    "body_limit",
    "check_ask_options",
    "declared_length",
    "gunzip_bounded",
    "limit_receive",
    "too_large",
]


def body_limit(scope: Scope, settings: Settings) -> tuple[int, str]:
    """The body limit for the request in ``scope`` and the name of its setting."""
    path, method = scope["path"], scope["method"]
    if (path == "/datasets" and method == "POST") or (path.startswith("/datasets/") and path.endswith("/store")):
        return settings.max_upload_bytes, "KGSVC_MAX_UPLOAD_BYTES"
    return settings.max_body_bytes, "KGSVC_MAX_BODY_BYTES"


def declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length``, or ``None`` when it has none (or an unreadable one)."""
    for key, value in scope["headers"]:
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def too_large(limit: int, setting: str, size: int | None = None) -> ApiError:
    """The 413 for a body over ``limit``."""
    what = f"the request body ({size:,} bytes)" if size is not None else "the request body"
    return ApiError(413, f"{what} is larger than {limit:,} bytes ({setting})", error="PayloadTooLarge")


def limit_receive(receive: Receive, limit: int, setting: str) -> Receive:
    """``receive`` that raises the 413 :class:`ApiError` once the body read so far passes ``limit`` bytes."""
    seen = 0

    async def limited() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise too_large(limit, setting)
        return message

    return limited


#: Bounds of the numeric ``/ask`` options (:class:`kgsvc.qa.options.QAOptions`), inclusive. ``deadline_s`` is
#: bounded by ``KGSVC_ASK_MAX_DEADLINE_S`` instead. Past them one question could run for minutes and take gigabytes
#: (``max_hops=12, relation_k=1000``: over 60 s and 6 GB before these bounds).
ASK_BOUNDS: dict[str, tuple[float, float]] = {
    "k": (1, 100),
    "relation_k": (1, 50),
    "nodes_per_mention": (1, 20),
    "max_hops": (1, 4),
    "choice_top": (1, 10),
    "n_exemplars": (0, 64),
    "embed_top": (1, 200),
    "infer_k": (1, 50),
}


def check_ask_options(options: dict[str, object], max_deadline_s: float) -> None:
    """Raise a 400 :class:`ApiError` naming every ``/ask`` option outside its bounds (:data:`ASK_BOUNDS`).

    >>> check_ask_options({"k": 5, "deadline_s": 1.5}, 30.0)
    >>> try:
    ...     check_ask_options({"max_hops": 12, "k": 0}, 30.0)
    ... except ApiError as exc:
    ...     print(exc)
    ask options out of bounds: k=0 (expected an integer from 1 to 100); max_hops=12 (expected an integer from 1 to 4)
    """
    problems = []
    for name, (low, high) in ASK_BOUNDS.items():
        value = options.get(name, low)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems.append(f"{name}={value!r} (expected an integer from {low:g} to {high:g})")
    value = options.get("deadline_s", max_deadline_s)
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= max_deadline_s:
        problems.append(
            f"deadline_s={value!r} (expected seconds above 0, at most {max_deadline_s:g}: KGSVC_ASK_MAX_DEADLINE_S)"
        )
    if problems:
        raise ApiError(400, "ask options out of bounds: " + "; ".join(problems))


class Inflater:
    """Un-gzip a stream under two bounds: at most ``limit`` bytes out, and at most ``max_ratio`` bytes out per byte
    in once more than :data:`RATIO_FLOOR` bytes are out.

    Feed compressed pieces to :meth:`feed`, which returns the bytes they inflate to; call :meth:`finish` at the end.
    Multi-member files (as pigz writes) are read whole. Each call inflates at most 1 MiB at a time, so a tiny piece
    that inflates hugely is stopped at the bound, not after it.

    The ratio bound stops a gzip bomb early: deflate reaches at most ~1,032:1, real RDF 3–30:1 (the shared test
    graphs: 2–11:1). Without it a bomb under ``limit`` costs a full inflate (1 GiB, seconds of CPU) per request.
    The same rule as Apache POI's ``ZipSecureFile`` (1:100 there).

    Raises (from :meth:`feed` and :meth:`finish`)
    ------
    ApiError
        413 past either bound, naming it and its setting; 400 for data that is not gzip or a truncated file.

    Notes
    -----
    O(output) time, O(1 MiB) memory.
    """

    STEP = 1 << 20

    def __init__(self, limit: int, max_ratio: int) -> None:
        self.limit, self.max_ratio = limit, max_ratio
        self.read = self.written = 0
        self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The bytes ``data`` inflates to, in pieces of at most 1 MiB (raises as the class says)."""
        self.read += len(data)
        try:
            while True:
                if self._z.eof:
                    if not self._z.unused_data and not data:
                        return
                    data, self._z = self._z.unused_data + data, zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                    continue  # the next member
                out = self._z.decompress(data, self.STEP)
                self._count(len(out))
                if out:
                    yield out
                data = self._z.unconsumed_tail
                if not data and len(out) < self.STEP and not self._z.eof:
                    return  # this input is used up and nothing is held back
        except zlib.error as exc:
            raise ApiError(400, f"the data is not valid gzip ({exc})", error="BadRequest") from None

    def finish(self) -> Iterator[bytes]:
        """The last bytes; a 400 when the gzip stream stops before its end."""
        yield from self.feed(b"")
        if not self._z.eof:
            raise ApiError(400, "the gzip data is truncated", error="BadRequest")

    def _count(self, n: int) -> None:
        self.written += n
        if self.written > self.limit:
            message = f"the data inflates to more than {self.limit:,} bytes (KGSVC_MAX_UPLOAD_BYTES)"
            raise ApiError(413, message, error="PayloadTooLarge")
        if self.written > RATIO_FLOOR and self.written > self.max_ratio * max(self.read, 1):
            message = (
                f"the data inflates more than {self.max_ratio}:1 (a gzip bomb? KGSVC_MAX_GZIP_RATIO): "
                f"{self.read:,} bytes gave {self.written:,}"
            )
            raise ApiError(413, message, error="PayloadTooLarge")


#: Below this many bytes out, no ratio is too high (a small, very regular file is fine).
RATIO_FLOOR = 16 << 20


def gunzip_bounded(source: Path, target: Path, limit: int, max_ratio: int) -> None:
    """Decompress the gzip file ``source`` into ``target`` with an :class:`Inflater` (``limit``, ``max_ratio``).

    Raises
    ------
    ApiError
        As :class:`Inflater`; ``target`` is removed then.
    """
    inflater = Inflater(limit, max_ratio)
    try:
        with source.open("rb") as raw, target.open("wb") as sink:
            while chunk := raw.read(1 << 16):
                for out in inflater.feed(chunk):
                    sink.write(out)
            for out in inflater.finish():
                sink.write(out)
    except ApiError as exc:
        target.unlink(missing_ok=True)
        if exc.status == 400:
            raise ApiError(400, f"the upload is named *.gz but is not a complete gzip file ({exc})") from None
        raise
