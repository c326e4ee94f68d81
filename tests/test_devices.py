"""One player on several devices without sign-up (SPEC B6, S1 kept; Z5, Z6): a device link
signs another browser in once and only for minutes, a recovery code brings the player back
anywhere until another is issued, and "sign out this device" makes its cookie nobody's.
The secrets are stored hashed, never logged, rate-limited and refused from another site.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from chuhan.server.db.engine import MIGRATIONS_DIR
from chuhan.server.db.store import Store
from chuhan.server.games.service import hash_token
from chuhan.server.identity import COOKIE
from chuhan.server.players.devices import device_label, recovery_code
from test_server_support import create, server

pytestmark = pytest.mark.timeout(120)
FOREIGN = {"Origin": "http://127.0.0.2:9999"}


class Browser:
    """Another browser on the same running app: the client's requests with a cookie jar of
    its own."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookies = httpx.Cookies()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        theirs = self.client.cookies
        self.client.cookies = self.cookies
        try:
            answer: httpx.Response = self.client.request(method, path, **kwargs)
            return answer
        finally:
            self.cookies = self.client.cookies
            self.client.cookies = theirs

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)


def _fresh(client: TestClient) -> Browser:
    """Another browser on the same server: its own first visit, its own player."""
    other = Browser(client)
    other.get("/api/me").raise_for_status()
    return other


def _me(client: TestClient | Browser) -> dict[str, Any]:
    answer = client.get("/api/me")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _link(client: TestClient) -> dict[str, Any]:
    answer = client.post("/api/devices/link")
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _code(link: dict[str, Any]) -> str:
    return str(link["url"]).partition("#")[2]


def _database_text(tmp_path: Path) -> str:
    with contextlib.closing(sqlite3.connect(tmp_path / "chuhan.sqlite3")) as db:
        return "\n".join(db.iterdump())


def test_a_device_link_signs_another_browser_in_once_b6(tmp_path):
    with server(tmp_path) as (phone, _, _):
        game = create(phone, kind="local")
        me = _me(phone)
        link = _link(phone)
        assert link["url"].startswith("http://testserver/device#")
        assert link["minutes"] == 10
        assert link["qr"].startswith("data:image/svg+xml")
        laptop = _fresh(phone)
        assert _me(laptop)["id"] != me["id"]
        answer = laptop.post("/api/devices/sign-in", json={"link": _code(link)})
        assert answer.status_code == 200, answer.text
        assert answer.json()["id"] == me["id"]
        assert _me(laptop)["id"] == me["id"]  # the laptop is the same player from now on
        assert laptop.get(f"/api/games/{game['id']}").status_code == 200  # with their games
        third = _fresh(phone)
        again = third.post("/api/devices/sign-in", json={"link": _code(link)})
        assert again.status_code == 404
        assert again.json()["error"]["code"] == "bad_code"
        assert _me(third)["id"] != me["id"]  # a used link signs nobody in
        listed = phone.get("/api/devices").json()["devices"]
        assert [device["current"] for device in listed] == [True, False]
        assert listed[0]["label"] == ""
        assert listed[1]["label"] == ""  # no browser said
        phone.headers["user-agent"] = "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile"
        listed = phone.get("/api/devices").json()["devices"]
        assert listed[0]["label"] == "Chrome · Android"  # the first device, named once read
        assert laptop.get("/api/devices").json()["devices"][1]["current"] is True


def test_an_expired_device_link_signs_nobody_in_b6(tmp_path):
    with server(tmp_path) as (phone, _, store):
        code = _code(_link(phone))
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE player_secrets SET expires_at = '2020-01-01 00:00:00'"))
        laptop = _fresh(phone)
        answer = laptop.post("/api/devices/sign-in", json={"link": code})
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "bad_code"
        assert _me(laptop)["id"] != _me(phone)["id"]


def test_a_recovery_code_restores_the_player_until_another_is_issued_b6(tmp_path):
    with server(tmp_path) as (phone, _, _):
        me = _me(phone)
        first = phone.post("/api/devices/recovery")
        assert first.status_code == 201
        old = first.json()["code"]
        assert recovery_code(old) == old
        assert len(old) == 29  # six groups of four
        lost = _fresh(phone)  # every cookie gone: a new browser
        typed = old.lower().replace("-", " ")  # as someone types it off a note
        assert lost.post("/api/devices/sign-in", json={"recovery": typed}).json()["id"] == me["id"]
        assert _me(lost)["id"] == me["id"]
        assert phone.get("/api/devices").json()["recovery_issued_at"]
        new = phone.post("/api/devices/recovery").json()["code"]
        assert new != old
        other = _fresh(phone)
        refused = other.post("/api/devices/sign-in", json={"recovery": old})
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "bad_code"
        assert other.post("/api/devices/sign-in", json={"recovery": new}).json()["id"] == me["id"]


def test_signing_a_device_out_makes_its_cookie_nobodys_b6(tmp_path):
    with server(tmp_path) as (phone, _, _):
        me = _me(phone)
        laptop = _fresh(phone)
        laptop.post("/api/devices/sign-in", json={"link": _code(_link(phone))}).raise_for_status()
        devices = phone.get("/api/devices").json()["devices"]
        laptop_id = next(device["id"] for device in devices if not device["current"])
        after = phone.delete(f"/api/devices/{laptop_id}")
        assert after.status_code == 200
        assert [device["current"] for device in after.json()["devices"]] == [True]
        assert laptop.get("/api/devices").status_code == 401  # its cookie names nobody now
        assert _me(laptop)["id"] != me["id"]  # a visit makes it a new player
        assert phone.delete(f"/api/devices/{laptop_id}").status_code == 404
        stranger = _fresh(phone)  # nobody signs out another player's device
        own = phone.get("/api/devices").json()["devices"][0]["id"]
        assert stranger.delete(f"/api/devices/{own}").status_code == 404
        assert _me(phone)["id"] == me["id"]


def test_the_secrets_are_stored_hashed_and_never_logged_b6(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with server(tmp_path) as (phone, _, _):
        link_code = _code(_link(phone))
        recovery = phone.post("/api/devices/recovery").json()["code"]
        laptop = _fresh(phone)
        laptop.post("/api/devices/sign-in", json={"link": link_code}).raise_for_status()
        cookie = laptop.cookies[COOKIE]
        stored = _database_text(tmp_path)
        for secret in (recovery, cookie):
            assert secret not in stored
        assert hash_token(recovery) in stored
        assert hash_token(cookie) in stored
        assert link_code not in stored  # used: not even its hash is left
        logged = "\n".join(record.getMessage() + repr(vars(record)) for record in caplog.records)
        assert "device signed in" in logged
        for secret in (link_code, recovery, cookie):
            assert secret not in logged


def test_device_sign_ins_are_rate_limited_per_address_b6_z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        for _ in range(60):
            wrong = client.post("/api/devices/sign-in", json={"recovery": "AAAA-" * 5 + "AAAA"})
            assert wrong.status_code == 404
        refused = client.post("/api/devices/sign-in", json={"recovery": "AAAA-" * 5 + "AAAA"})
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "too_many_sign_ins"
        assert refused.json()["error"]["retry_after"] >= 1


def test_device_links_are_rate_limited_per_player_b6_z5(tmp_path):
    with server(tmp_path) as (client, _, _):
        for _ in range(30):
            _link(client)
        refused = client.post("/api/devices/link")
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_device_codes"
        other = _fresh(client)
        assert other.post("/api/devices/link").status_code == 201  # another player's is theirs


def test_another_site_can_neither_make_nor_use_a_device_code_b6_z6(tmp_path):
    with server(tmp_path) as (phone, _, _):
        for path in ("/api/devices/link", "/api/devices/recovery"):
            refused = phone.post(path, headers=FOREIGN)
            assert refused.status_code == 403
            assert refused.json()["error"]["code"] == "foreign_origin"
        device = phone.get("/api/devices").json()["devices"][0]["id"]
        assert phone.delete(f"/api/devices/{device}", headers=FOREIGN).status_code == 403
        assert phone.get("/api/devices").json()["devices"][0]["id"] == device
        code = _code(_link(phone))
        victim = _fresh(phone)
        victim_id = _me(victim)["id"]
        # Another site's page that would sign its visitor in as the attacker's player.
        refused = victim.post("/api/devices/sign-in", json={"link": code}, headers=FOREIGN)
        assert refused.status_code == 403
        assert "set-cookie" not in refused.headers
        assert _me(victim)["id"] == victim_id
        assert victim.post("/api/devices/sign-in", json={"link": code}).status_code == 200


def test_players_made_before_devices_keep_their_cookie_b6(tmp_path):
    """The migration makes every existing player's cookie their first device."""
    url = f"sqlite:///{tmp_path}/chuhan.sqlite3"
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    engine = create_engine(url)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0009_seeks")
        conn.execute(
            text(
                "INSERT INTO players (id, token_hash, name, ai_points, online_points, created_at)"
                " VALUES ('p_old', :hash, 'Old', 3, 0, '2026-01-01 00:00:00')"
            ),
            {"hash": hash_token("old-cookie")},
        )
    engine.dispose()
    store = Store(url)
    store.migrate()
    found = store.player_by_token_hash(hash_token("old-cookie"))
    assert found is not None
    assert (found.id, found.name, found.ai_points) == ("p_old", "Old", 3)
    store.dispose()


def test_a_device_is_shown_by_its_browser_and_system_b6():
    android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
    assert device_label(android) == "Chrome · Android"
    iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Safari/605.1"
    assert device_label(iphone) == "Safari · iPhone"
    assert device_label("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Firefox/128.0") == (
        "Firefox · Linux"
    )
    assert device_label("curl/8.0") == ""


def test_a_device_link_and_a_recovery_code_on_either_database_b6(tmp_path, database):
    """The lookup by device runs as its own statement on PostgreSQL (Store.driver)."""
    with server(tmp_path, database=database) as (phone, _, _):
        me = _me(phone)
        assert me["name_chosen"] is False
        assert me["name"]  # B7: a default name, on both
        laptop = _fresh(phone)
        laptop.post("/api/devices/sign-in", json={"link": _code(_link(phone))}).raise_for_status()
        assert _me(laptop)["id"] == me["id"]
        code = phone.post("/api/devices/recovery").json()["code"]
        lost = _fresh(phone)
        assert lost.post("/api/devices/sign-in", json={"recovery": code}).json()["id"] == me["id"]
        assert len(phone.get("/api/devices").json()["devices"]) == 3


def test_bad_sign_ins_get_a_clear_error_and_change_nothing_b6_z5(tmp_path):
    with server(tmp_path) as (phone, _, _):
        me = _me(phone)
        body: object
        for body in ({}, {"link": "not-a-code"}, {"recovery": "0000-1111"}, {"link": None}):
            answer = phone.post("/api/devices/sign-in", json=body)
            assert answer.status_code == 404
            assert answer.json()["error"]["code"] == "bad_code"
        for body in ({"link": "x" * 65}, {"recovery": 5}, [1, 2]):
            answer = phone.post("/api/devices/sign-in", json=body)
            assert answer.status_code == 422, body
            assert answer.json()["error"]["code"] == "invalid_request"
        assert phone.delete("/api/devices/" + "d" * 100).status_code == 404
        assert _me(phone)["id"] == me["id"]
        assert len(phone.get("/api/devices").json()["devices"]) == 1
        # Opening one's own link signs in nobody new: still one device.
        own = phone.post("/api/devices/sign-in", json={"link": _code(_link(phone))})
        assert own.status_code == 200
        assert own.json()["id"] == me["id"]
        assert len(phone.get("/api/devices").json()["devices"]) == 1
