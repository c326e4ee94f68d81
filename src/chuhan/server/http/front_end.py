"""The single-page front end as the server gives it: ``/static/…`` files of the front end's
own kinds, ``index.html`` for ``/`` and the client's routes, and ``/learn/…`` redirected to the
learn pages (U8).

The pages share their head and top bar: a line ``<!--#include file="partials/…" -->`` of a
page stands for that file of the front end's folder, indented as the line.
"""

from __future__ import annotations

import hashlib
import os
import re
import textwrap
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..settings import Settings

# The client's routes (device: B6's link; leaderboard: B8).
SPA_PREFIXES = ("play", "room", "review", "games", "device", "puzzles", "leaderboard")
LEARN_PAGE = "/static/learn/index.html"  # the learn pages route by the hash (U8)
# What /static/ serves: the front end's own kinds of file, nothing else found in its folder.
FRONT_END_SUFFIXES = frozenset(
    (".html", ".js", ".css", ".json", ".svg", ".png", ".webp", ".ico", ".woff2", ".woff",
     ".ttf", ".otf", ".txt", ".mp3", ".ogg", ".wav")
)  # fmt: skip
INCLUDE = re.compile(r'^([ \t]*)<!--#include file="([^"]+)" -->\n', re.MULTILINE)


def render_page(web_dir: Path, page: Path) -> bytes:
    """The page with its include lines replaced by the files they name (module docstring)."""

    def include(line: re.Match[str]) -> str:
        return textwrap.indent((web_dir / line[2]).read_text("utf-8"), line[1])

    return INCLUDE.sub(include, page.read_text("utf-8")).encode()


def page_response(web_dir: Path, page: Path, request_headers: Headers) -> Response:
    """The rendered page, or 304 when the client's copy (``If-None-Match``) is this one."""
    body = render_page(web_dir, page)
    etag = f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'
    if etag in request_headers.get("if-none-match", ""):
        return Response(status_code=304, headers={"etag": etag})
    return Response(body, media_type="text/html", headers={"etag": etag})


class FrontEndFiles(StaticFiles):
    """``StaticFiles`` limited to the front end's kinds of file (no tools, no sources), its
    pages rendered (:func:`render_page`)."""

    async def get_response(self, path: str, scope: Any) -> Response:
        name = path.rsplit("/", 1)[-1]
        if name.startswith(".") or not any(name.endswith(s) for s in FRONT_END_SUFFIXES):
            raise StarletteHTTPException(404, "not found")
        return await super().get_response(path, scope)

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Any,
        status_code: int = 200,
    ) -> Response:
        page = Path(full_path)
        if page.suffix != ".html" or self.directory is None:
            return super().file_response(full_path, stat_result, scope, status_code)
        return page_response(Path(self.directory), page, Headers(scope=scope))


def mount_front_end(app: FastAPI, settings: Settings) -> None:
    """The single-page front end: ``/static/…`` files; ``/`` and its routes give index.html."""
    web_dir = settings.web_dir
    app.mount("/static", FrontEndFiles(directory=web_dir, check_dir=False), name="static")

    def index(request: Request) -> Response:
        page = web_dir / "index.html"
        if not page.is_file():
            raise StarletteHTTPException(404, "the front end is not installed")
        return page_response(web_dir, page, request.headers)

    @app.get("/", include_in_schema=False)
    async def root(request: Request) -> Response:
        return index(request)

    for prefix in SPA_PREFIXES:
        app.add_api_route(f"/{prefix}", index, include_in_schema=False, methods=["GET"])
        app.add_api_route(
            f"/{prefix}/{{rest:path}}", index, include_in_schema=False, methods=["GET"]
        )

    @app.get("/learn", include_in_schema=False)
    @app.get("/learn/{rest:path}", include_in_schema=False)
    async def learn(rest: str = "") -> RedirectResponse:
        """``/learn/rules/xiangqi`` → the learn pages at ``#/rules/xiangqi``."""
        target = f"{LEARN_PAGE}#/{quote(rest.strip('/'))}" if rest.strip("/") else LEARN_PAGE
        return RedirectResponse(target, status_code=307)
