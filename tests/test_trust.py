"""Trust round three, at the HTTP API: where a request comes from (SPEC Z6).

The browser side of the same rule (a real page of another origin) is tests/test_web_csrf.py.
Every test runs a real app (lifespan, migrations, SQLite) with a scripted AI.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from chuhan.server.db.tables import players
from test_server_support import server

pytestmark = pytest.mark.timeout(60)
SITE = "http://testserver"  # the TestClient's Host


def _player_count(store: object) -> int:
    with store.engine.connect() as conn:  # type: ignore[attr-defined]
        return int(conn.execute(select(func.count()).select_from(players)).scalar_one())


def test_no_unsafe_request_creates_or_replaces_an_identity_Z6(tmp_path: Path) -> None:
    with server(tmp_path, visit=False) as (client, _, store):
        for method, path, body in (
            ("POST", "/api/records", None),
            ("POST", "/api/games", {"kind": "local"}),
            ("PATCH", "/api/me", {"name": "Mallory"}),
            ("POST", "/api/rooms", {"variant": "xiangqi"}),
            ("POST", "/api/rooms/r_x/leave", None),
        ):
            answer = client.request(method, path, json=body)
            assert answer.status_code == 401, (path, answer.text)
            assert answer.json()["error"]["code"] == "no_player"
            assert "set-cookie" not in answer.headers
        assert _player_count(store) == 0
        # A read (the front end makes one as any of its pages opens) still makes it (S1).
        me = client.get("/api/me")
        assert me.status_code == 200
        assert "chuhan_player=" in me.headers["set-cookie"]
        assert client.patch("/api/me", json={"name": "Alice"}).json()["name"] == "Alice"
        assert _player_count(store) == 1


def test_unsafe_requests_from_another_origin_are_refused_Z6(tmp_path: Path) -> None:
    with server(tmp_path, allowed_origins=("https://friend.example",)) as (client, _, _):
        me = client.get("/api/me").json()
        rename = {"name": "Mallory"}
        for headers in (
            {"Origin": "https://evil.example"},
            {"Origin": "http://testserver:8080"},  # another port of the same host
            {"Origin": "null"},  # a sandboxed frame, a data: page
            {"Sec-Fetch-Site": "same-site"},  # no Origin, but the browser says where from
            {"Sec-Fetch-Site": "cross-site"},
        ):
            answer = client.patch("/api/me", json=rename, headers=headers)
            assert answer.status_code == 403, headers
            assert answer.json()["error"]["code"] == "foreign_origin"
        assert client.get("/api/me").json() == me  # nothing changed
        for headers in (
            {"Origin": SITE, "Sec-Fetch-Site": "same-origin"},  # the site's own page
            {"Origin": "https://friend.example"},  # CHUHAN_ALLOWED_ORIGINS
            {},  # not a browser (curl, the tests): nothing says where from
        ):
            answer = client.patch("/api/me", json={"name": "Alice"}, headers=headers)
            assert answer.status_code == 200, headers
        # Safe requests are not refused: a link from another site opens the page as ever.
        assert client.get("/api/me", headers={"Origin": "https://evil.example"}).status_code == 200


def test_a_form_body_needs_the_client_header_Z6(tmp_path: Path) -> None:
    """What an HTML form can send (also from a browser that says nothing of its origin)."""
    record = b'[Variant "xiangqi"]\n\n1. h2e2 *'
    with server(tmp_path) as (client, _, _):
        for content_type in (
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ):
            answer = client.post(
                "/api/records", content=record, headers={"Content-Type": content_type}
            )
            assert answer.status_code == 415, content_type
            assert answer.json()["error"]["code"] == "form_body"
        assert client.get("/api/me").json()["games"] == []
        sent_by_the_page = client.post(
            "/api/records",
            content=record,
            headers={"Content-Type": "text/plain;charset=UTF-8", "X-Chuhan-Client": "web"},
        )
        assert sent_by_the_page.status_code == 201
        assert client.post("/api/records", content=record).status_code == 201  # no body type


# ---------------------------------------------------------------------- names (hole 10)

REFUSED_NAMES = {
    "\u3164": "invisible",  # Hangul filler: looks like no name
    "\uffa0\uffa0": "invisible",  # halfwidth Hangul filler
    "\u2800": "invisible",  # braille blank
    "Alice\u3164": "invisible",  # looks like "Alice"
    "Al\u200bice": "invisible",  # zero-width space
    "Alice\u202e": "invisible",  # right-to-left override
    "Bob" + "\ufe0f" * 12: "invisible",  # a run of variation selectors
    "Z" + "\u0336\u0301\u0317\u035c\u0328" * 4 + "algo": "marks",
    "Chu-Han AI (advanced)": "reserved",
    "chu han  ai": "reserved",
    "\uff23\uff48\uff55\uff48\uff41\uff4e": "reserved",  # fullwidth "Chuhan"
    "12345": "no_letter",
    "!!!": "no_letter",
}


def test_invisible_look_alike_and_reserved_names_are_refused(tmp_path: Path) -> None:
    with server(tmp_path) as (client, _, _):
        assert client.patch("/api/me", json={"name": "Alice"}).status_code == 200
        for name, reason in REFUSED_NAMES.items():
            answer = client.patch("/api/me", json={"name": name})
            assert answer.status_code == 400, (name, answer.text)
            error = answer.json()["error"]  # the rule broken, as for passwords (R2)
            assert (error["code"], error["reason"]) == ("bad_name", reason), name
        assert client.get("/api/me").json()["name"] == "Alice"  # nothing was kept


def test_names_of_every_script_are_kept_composed(tmp_path: Path) -> None:
    with server(tmp_path) as (client, _, _):
        for given, kept in (
            ("Nguye\u0302\u0303n Va\u0306n An", "Nguyễn Văn An"),  # decomposed: kept NFC
            ("ที่รัก", "ที่รัก"),  # Thai: a vowel and a tone mark on one letter
            ("李雷 2", "李雷 2"),
            ("  Zoë   Ö  ", "Zoë Ö"),
            ("Player 7", "Player 7"),
            ("Huang Chu", "Huang Chu"),
        ):
            answer = client.patch("/api/me", json={"name": given})
            assert answer.status_code == 200, (given, answer.text)
            assert answer.json()["name"] == kept


def _record(**tags: str) -> bytes:
    lines = [f'[{name} "{value}"]' for name, value in tags.items()]
    return ("\n".join(['[Variant "xiangqi"]', *lines]) + "\n\n1. h2e2 *\n").encode()


def test_record_tags_follow_the_same_rules(tmp_path: Path) -> None:
    with server(tmp_path) as (client, _, _):
        for tags in (
            {"Red": "Alice\u3164"},
            {"Black": "\u2800"},
            {"Event": "Z" + "\u0336\u0301\u0317\u035c\u0328" * 4},
        ):
            answer = client.post("/api/records", content=_record(**tags))
            assert answer.status_code == 400, tags
            error = answer.json()["error"]
            assert error["code"] == "bad_record"
            assert next(iter(tags)) in error["message"]
        assert client.get("/api/me").json()["games"] == []
        # A record of a game against the AI names it, and a date has no letter: both kept.
        kept = {"Red": "Chu-Han AI (advanced)", "Black": "Lin Wei", "Date": "2026.12.03"}
        answer = client.post("/api/records", content=_record(**kept))
        assert answer.status_code == 201, answer.text
        assert answer.json()["options"]["record_tags"] == kept
