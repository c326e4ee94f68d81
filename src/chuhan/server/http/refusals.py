"""How the HTTP API says no: one exception (:class:`~.refusal.GameActionError`), one handler,
one JSON shape (docs/protocol.md, HTTP errors).

Every refusal is ``{"error": {"code", "message", …fields}}`` with its code's status
(:func:`~.protocol.http_status`); ``retry_after`` is also the ``Retry-After`` header. A route
raises; it never builds an error answer itself.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..protocol.errors import error_body
from ..refusal import GameActionError


def error_response(exc: GameActionError, status: int | None = None) -> JSONResponse:
    """The answer to a refusal (``status``: only for a status the code does not decide)."""
    answer = JSONResponse(
        error_body(exc.code, exc.message, **exc.extra), status_code=status or exc.status
    )
    retry_after = exc.extra.get("retry_after")
    if retry_after is not None:
        answer.headers["Retry-After"] = str(retry_after)
    return answer


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, GameActionError)
    return error_response(exc)


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()
    )
    return error_response(GameActionError("invalid_request", problems or "invalid request"))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals: an unknown path (404), a method the path has not (405)…"""
    assert isinstance(exc, StarletteHTTPException)
    code = "not_found" if exc.status_code == 404 else "http_error"
    return error_response(GameActionError(code, str(exc.detail)), exc.status_code)


def answer_refusals(app: FastAPI) -> None:
    """Install the handlers: every refusal of ``app`` is answered in the one shape."""
    handlers: dict[type[Exception], Any] = {
        GameActionError: _refused,
        RequestValidationError: _invalid,
        StarletteHTTPException: _http_error,
    }
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)
