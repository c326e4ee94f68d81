"""No page of another site can act as a player (SPEC Z6).

A real Chromium visits a real ``chuhan serve`` at http://127.0.0.1:P, then a page of another
origin that acts on its own: http://127.0.0.2:Q is another *site* (the player's Lax cookie is
not sent along), http://127.0.0.1:Q another origin of the *same* site (the cookie is sent).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Response, ViewportSize

from rooms_client import Player, RoomSocket, running_server
from web_fixtures import DESKTOP, chromium  # noqa: F401  (the module's browser)

VICTIM_POINTS = 12
# What an HTML form with enctype=text/plain sends is "name=value": the "=" lands in a comment.
RECORD_NAME = '[Variant "xiangqi"]\n\n1. h2e2 {'
RECORD_VALUE = "} *"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("csrf")
    with running_server(data) as url:
        yield url, data


@contextlib.contextmanager
def foreign_site(host: str, pages: dict[str, str]) -> Iterator[str]:
    """Someone else's web site at http://host:<free port>/, serving ``pages`` (path → HTML)."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer((host, 0), Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _give_points(data: Path, player_id: str, points: int) -> None:
    """The victim's AI points as if earned (the server reads them from its database)."""
    with contextlib.closing(sqlite3.connect(data / "chuhan.sqlite3")) as db, db:
        db.execute("UPDATE players SET ai_points = ? WHERE id = ?", (points, player_id))


def _identity(context: BrowserContext, url: str) -> dict[str, Any]:
    """The profile the browser's cookie stands for, as the site's own page reads it."""
    answer = context.request.get(f"{url}/api/me")
    assert answer.status == 200
    me = dict(answer.json())
    return {"id": me["id"], "name": me["name"], "points": me["points"]["ai"]}


def _refused(response: Response) -> None:
    cookie = response.header_value("set-cookie")
    answer = (response.status, cookie, response.request.headers.get("origin"))
    assert response.status == 403, answer
    assert cookie is None  # no identity is made for the request


def test_a_cross_site_form_post_or_fetch_keeps_the_visitors_identity_Z6(
    site: tuple[str, Path],
    chromium: Browser,  # noqa: F811
) -> None:
    url, data = site
    context = chromium.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.goto(f"{url}/")  # S1: the first visit makes the identity (a GET)
    page.wait_for_selector("body[data-ready=true]")
    renamed = page.evaluate(
        """async () => (await fetch('/api/me', {method: 'PATCH',
            headers: {'content-type': 'application/json'},
            body: JSON.stringify({name: 'Alice'})})).status"""
    )
    assert renamed == 200  # the site's own page still acts (same origin)
    before = _identity(context, url)
    _give_points(data, before["id"], VICTIM_POINTS)
    before = _identity(context, url)
    assert before["name"] == "Alice"
    assert before["points"] == VICTIM_POINTS

    attack = f"""<!doctype html><form method="post" action="{url}/api/records"
        enctype="text/plain"><input type="hidden" name='{RECORD_NAME}' value="{RECORD_VALUE}">
        </form><script>document.forms[0].submit()</script>"""
    import_fetch = f"""<!doctype html><script>
        fetch("{url}/api/records", {{method: "POST", mode: "no-cors", credentials: "include",
            body: '[Variant "xiangqi"]\\n\\n1. h2e2 *'}});</script>"""
    pages = {"/form": attack, "/import": import_fetch}
    with foreign_site("127.0.0.2", pages) as evil:
        with page.expect_response(lambda r: r.url == f"{url}/api/records") as posted:
            page.goto(f"{evil}/form")
        _refused(posted.value)
        assert posted.value.json()["error"]["code"] == "foreign_origin"
        assert _identity(context, url) == before  # name and points intact, same player
        with page.expect_response(lambda r: r.url == f"{url}/api/records") as fetched:
            page.goto(f"{evil}/import")
        _refused(fetched.value)  # a no-cors answer: its status only, the body is opaque
        assert _identity(context, url) == before
    context.close()


def _seated_in_a_game(url: str) -> tuple[Player, Player, str, list[RoomSocket]]:
    """Two players in a room whose game has begun (R3), each holding their seat."""
    victim, friend = Player(url), Player(url)
    room = victim.create_room(variant="xiangqi")
    assert friend.join_invite(room["invite"]).status_code == 200
    sockets = [victim.open(room["id"]), friend.open(room["id"])]
    for sock in sockets:
        assert sock.request("ready")["type"] == "ack"
    for sock in sockets:
        sock.wait_for(lambda m: m.get("type") == "state")
    return victim, friend, room["id"], sockets


def test_a_same_site_page_cannot_make_a_seated_player_leave_Z6(
    site: tuple[str, Path],
    chromium: Browser,  # noqa: F811
) -> None:
    url, _ = site
    victim, friend, room_id, sockets = _seated_in_a_game(url)
    before = friend.http.get(f"/api/rooms/{room_id}").json()
    assert before["game_id"]
    assert len(before["seats"]) == 2
    context = chromium.new_context(viewport=DESKTOP, locale="en-US")
    # The victim's browser holds the victim's cookie for the site (SameSite=Lax, as served).
    context.add_cookies(
        [
            {
                "name": "chuhan_player",
                "value": victim.http.cookies["chuhan_player"],
                "url": url,
                "httpOnly": True,
                "sameSite": "Lax",
            }
        ]
    )
    page = context.new_page()
    attack = f"""<!doctype html><script>
        fetch("{url}/api/rooms/{room_id}/leave",
              {{method: "POST", mode: "no-cors", credentials: "include"}});
        </script>"""
    # Another port of the same host: the same site, so the Lax cookie goes along.
    with foreign_site("127.0.0.1", {"/leave": attack}) as neighbour:
        with page.expect_response(lambda r: r.url == f"{url}/api/rooms/{room_id}/leave") as left:
            page.goto(f"{neighbour}/leave")
        _refused(left.value)  # a no-cors answer: its status only, the body is opaque
    after = friend.http.get(f"/api/rooms/{room_id}").json()
    assert after["game_id"] == before["game_id"]
    assert after["status"] == before["status"]
    assert after["seats"] == before["seats"]  # the victim is still seated, the game goes on
    assert "end" not in {m.get("type") for s in sockets for m in s.messages}
    for sock in sockets:
        sock.close()
    context.close()


@pytest.mark.parametrize(
    ("locale", "viewport", "said"),
    [
        ("es-ES", {"width": 390, "height": 844}, "Un nombre no puede llevar caracteres invisibles"),
        ("en-US", DESKTOP, "A name cannot hold invisible characters"),
    ],
)
def test_a_look_alike_name_is_refused_in_the_players_language(
    site: tuple[str, Path],
    chromium: Browser,  # noqa: F811
    locale: str,
    viewport: ViewportSize,
    said: str,
    tmp_path: Path,
) -> None:
    url, _ = site
    context = chromium.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    page.goto(f"{url}/")
    page.wait_for_selector("body[data-ready=true]")
    page.click("[data-action=settings]")
    dialog = page.locator("dialog[data-settings-dialog]")
    dialog.locator("#settings-name").fill("Alice\u3164")  # "Alice" and a Hangul filler
    dialog.locator("[data-action=save-name]").click()
    status = dialog.locator("[data-name-status]")
    status.filter(has_text=said).wait_for()
    page.screenshot(path=str(tmp_path / f"bad-name-{viewport['width']}.png"))
    assert not _identity(context, url)["name"].startswith("Alice")  # nothing was kept
    context.close()
