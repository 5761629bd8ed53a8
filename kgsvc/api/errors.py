"""The one place where exceptions become HTTP status codes (STYLE (d)).

| exception                                  | status |
|--------------------------------------------|--------|
| QueryError kind ``syntax``                 | 400    |
| QueryError kind ``forbidden`` (SERVICE, LOAD)  | 403    |
| QueryError kind ``too_large``              | 413    |
| QueryError kind ``timeout``                | 503 (``Retry-After``) |
| IngestError (a malformed body or upload)   | 400    |
| DatasetError: unknown / exists or graph owned by another / bad name | 404 / 409 / 400 |
| LinkError, PatternError, MatchError        | 422    |
| IndexError\\_ (index not built yet)        | 409    |
| LLMError                                   | 502    |
| StoreError, other KgsvcError               | 500, a generic message and an ``id`` the log repeats |
| :class:`NotAcceptable`                     | 406    |
| :class:`ApiError`                          | its own (400, 401, 403, 404, 413, 415) |

A 500 answer names no path, URL or exception text (:mod:`kgsvc.api.scrub`): the log has them under the answer's
``id``. Every error body is JSON: ``{"error": <exception class>, "message": …, "status": …}`` (the class without a
trailing ``_``: ``IndexError``) plus ``kind``, ``dataset`` or ``file``/``line``/``column``/``reason`` where the
exception has them; :class:`kgsvc.sdk.client.Client` raises the same exception from it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from kgsvc.api.negotiation import NotAcceptable
from kgsvc.api.scrub import scrub_text
from kgsvc.errors import (
    DatasetError,
    IndexError_,
    IngestError,
    KgsvcError,
    LinkError,
    LLMError,
    MatchError,
    PatternError,
    QueryError,
)

__all__ = ["ApiError", "error_response", "handler_for", "install_error_handlers", "status_of"]

log = logging.getLogger(__name__)

_QUERY_STATUS = {"syntax": 400, "forbidden": 403, "too_large": 413, "timeout": 503}


class ApiError(Exception):
    """An error the HTTP layer itself finds: a protocol violation, a missing token, a wrong media type."""

    def __init__(
        self, status: int, message: str, *, error: str = "ProtocolError", headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.headers = headers


def status_of(exc: BaseException) -> int:
    """The HTTP status for an exception kgsvc raises."""
    if isinstance(exc, ApiError):
        return exc.status
    if isinstance(exc, NotAcceptable):
        return 406
    if isinstance(exc, QueryError):
        return _QUERY_STATUS.get(exc.kind, 400)
    if isinstance(exc, IngestError):
        return 400
    if isinstance(exc, DatasetError):
        message = str(exc)
        if message.startswith("unknown dataset"):
            return 404
        if "already exists" in message or "belongs to dataset" in message:
            return 409
        return 400
    if isinstance(exc, LinkError | PatternError | MatchError):
        return 422
    if isinstance(exc, IndexError_):
        return 409
    if isinstance(exc, LLMError):
        return 502
    return 500


def error_response(
    status: int, error: str, message: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    body = {"error": error, "message": message, "status": status}
    body.update({k: v for k, v in extra.items() if v is not None})
    return JSONResponse(body, status_code=status, headers=headers)


def _details(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, QueryError):
        return {"kind": exc.kind}
    if isinstance(exc, IngestError):
        return {"reason": exc.reason, "file": exc.file, "line": exc.line, "column": exc.column, "dataset": exc.dataset}
    if isinstance(exc, DatasetError | IndexError_):
        return {"dataset": exc.dataset}
    return {}


async def _kgsvc_error(request: Request, exc: Exception) -> Response:
    status = status_of(exc)
    if status == 500:  # the details (store URLs, paths) go to the log only, under an id the answer gives
        incident = uuid.uuid4().hex[:12]
        log.error("%s %s failed [%s]: %s", request.method, request.url.path, incident, exc, exc_info=exc)
        message = f"the server failed to answer; its log has the details under id {incident}"
        return error_response(500, "InternalError", message, id=incident)
    if status > 500 and status != 503:
        log.error("%s %s failed: %s", request.method, request.url.path, exc, exc_info=exc)
        if isinstance(exc, LLMError):  # may name the LLM server's URL
            exc = LLMError(scrub_text(str(exc)))
    headers = {"Retry-After": "1"} if status == 503 else None
    if isinstance(exc, ApiError):
        return error_response(status, exc.error, str(exc), headers=exc.headers)
    name = "NotAcceptable" if isinstance(exc, NotAcceptable) else type(exc).__name__.rstrip("_")  # IndexError
    return error_response(status, name, str(exc), headers=headers, **_details(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    return error_response(exc.status_code, "HTTPException", str(exc.detail), headers=getattr(exc, "headers", None))


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in error.get('loc', ()))}: {error.get('msg')}" for error in exc.errors()
    )
    return error_response(422, "ValidationError", problems or "invalid request")


_HANDLERS: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
    KgsvcError: _kgsvc_error,
    ApiError: _kgsvc_error,
    NotAcceptable: _kgsvc_error,
    StarletteHTTPException: _http_error,
    RequestValidationError: _validation_error,
}


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping above on ``app``."""
    for exc_class, handler in _HANDLERS.items():
        app.add_exception_handler(exc_class, handler)


def handler_for(exc: Exception) -> Callable[[Request, Exception], Awaitable[Response]] | None:
    """The handler :func:`install_error_handlers` registers for ``exc`` (looked up along its MRO, as Starlette's
    exception middleware does), or ``None``."""
    for cls in type(exc).__mro__:
        handler = _HANDLERS.get(cls)
        if handler is not None:
            return handler
    return None
