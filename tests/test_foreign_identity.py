"""No page of another site makes players (SPEC Z6): a foreign page's ``<img src=/api/me>``
neither creates an identity nor spends the address's budget of new players.

A real Chromium opens a page on another origin (http://127.0.0.2:Q, another site, and
http://127.0.0.1:Q, another origin of the same site) holding many images of the server's
``/api/me``; then a real visitor from the same address opens the site and gets in.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from rooms_client import running_server
from test_web_csrf import foreign_site
from web_fixtures import DESKTOP, chromium  # noqa: F401  (the module's browser)

IMAGES = 120
BUDGET = 20  # new players per address in this server: fewer than the images


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("foreign-identity")
    with running_server(data, CHUHAN_NEW_PLAYERS_PER_ADDRESS=str(BUDGET)) as url:
        yield url, data


def _players(data: Path) -> int:
    with contextlib.closing(sqlite3.connect(data / "chuhan.sqlite3")) as db:
        return int(db.execute("SELECT COUNT(*) FROM players").fetchone()[0])


@pytest.mark.parametrize("host", ["127.0.0.2", "127.0.0.1"])
def test_a_foreign_pages_images_make_no_player_and_spend_no_budget_Z6(
    site: tuple[str, Path],
    chromium: Browser,  # noqa: F811
    host: str,
) -> None:
    url, data = site
    before = _players(data)
    images = "".join(f'<img src="{url}/api/me?n={n}">' for n in range(IMAGES))
    attacker = chromium.new_context(viewport=DESKTOP)
    with foreign_site(host, {"/cafe": f"<!doctype html><body>{images}</body>"}) as evil:
        asked = []
        page = attacker.new_page()
        page.on("request", lambda r: asked.append(r.url) if "/api/me" in r.url else None)
        page.goto(f"{evil}/cafe", wait_until="load")
    attacker.close()
    assert len(asked) == IMAGES  # the browser did ask the server for every image
    assert _players(data) == before  # and no player was made for any of them

    # The next real visitor from the same address (the school's, the café's) gets in.
    visitor = chromium.new_context(viewport=DESKTOP)
    page = visitor.new_page()
    page.goto(f"{url}/")
    page.wait_for_selector("body[data-ready=true]")
    assert visitor.request.get(f"{url}/api/me").status == 200
    assert _players(data) == before + 1
    visitor.close()
