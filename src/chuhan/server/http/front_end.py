"""The single-page front end as the server gives it: ``/static/…`` files of the front end's
own kinds, ``index.html`` for ``/`` and the client's routes, and ``/learn/…`` redirected to the
learn pages (issue 10)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Response
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..settings import Settings

SPA_PREFIXES = ("play", "room", "review", "games")
LEARN_PAGE = "/static/learn/index.html"  # the learn pages route by the hash (issue 10)
# What /static/ serves: the front end's own kinds of file, nothing else found in its folder.
FRONT_END_SUFFIXES = frozenset(
    (".html", ".js", ".css", ".json", ".svg", ".png", ".webp", ".ico", ".woff2", ".woff",
     ".ttf", ".otf", ".txt", ".mp3", ".ogg", ".wav")
)  # fmt: skip


class FrontEndFiles(StaticFiles):
    """``StaticFiles`` limited to the front end's kinds of file (no tools, no sources)."""

    async def get_response(self, path: str, scope: Any) -> Response:
        name = path.rsplit("/", 1)[-1]
        if name.startswith(".") or not any(name.endswith(s) for s in FRONT_END_SUFFIXES):
            raise StarletteHTTPException(404, "not found")
        return await super().get_response(path, scope)


def mount_front_end(app: FastAPI, settings: Settings) -> None:
    """The single-page front end: ``/static/…`` files; ``/`` and its routes give index.html."""
    web_dir = settings.web_dir
    app.mount("/static", FrontEndFiles(directory=web_dir, check_dir=False), name="static")

    def index() -> FileResponse:
        page = web_dir / "index.html"
        if not page.is_file():
            raise StarletteHTTPException(404, "the front end is not installed")
        return FileResponse(page, media_type="text/html")

    @app.get("/", include_in_schema=False)
    async def root() -> FileResponse:
        return index()

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
