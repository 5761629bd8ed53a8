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

from starlette.types import Message, Receive, Scope

from kgsvc.api.errors import ApiError
from kgsvc.settings import Settings

__all__ = ["body_limit", "declared_length", "limit_receive", "too_large"]


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
