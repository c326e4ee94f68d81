"""Whoever reads the logs can open no shared game and join no room (SPEC Z3): a token in a
path is logged as "…" however the path is spelled. ``/api/%73hared/<token>`` is the same
route as ``/api/shared/<token>`` once decoded, so the logs redact the decoded path, in the
app's own log (uvicorn's access lines) and in nginx's (``deploy/nginx-chuhan.conf``).
"""

from __future__ import annotations

import http.client
import ssl
from pathlib import Path
from urllib.parse import urlsplit

from chuhan.server.logs import redact_path
from rooms_client import free_port, running_server
from test_proxy import ProxiedPlayer, make_certificate, nginx, site_config

SPELLINGS = ("/api/%73hared/{}", "/api/shared%2F{}", "/%72eview/{}", "/api//shared/{}")


def _get_as_sent(port: int, trust: ssl.SSLContext, path: str) -> int:
    """GET ``path`` byte for byte (an HTTP library would decode ``%73`` to ``s`` first)."""
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=trust, timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


def test_an_encoded_secret_path_is_redacted_as_its_decoded_route_z3() -> None:
    assert redact_path("/api/%73hared/AbC-123_tok") == "/api/shared/…"
    assert redact_path("/%72eview/AbC-123_tok?x=1") == "/review/…"
    assert redact_path("/room/%69/AbC-123_tok") == "/room/i/…"
    assert redact_path("/api/rooms/%69nvite/AbC-123_tok") == "/api/rooms/invite/…"
    assert redact_path("/api/games/g_1/record") == "/api/games/g_1/record"  # nothing secret


def test_neither_log_holds_a_share_token_spelled_another_way_z3(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    listen = free_port()
    (tmp_path / "app").mkdir()
    with running_server(tmp_path / "app") as url:
        port = urlsplit(url).port
        assert port is not None
        with nginx(tmp_path, site_config([port], listen, cert, key), listen):
            site = f"https://127.0.0.1:{listen}"
            trust = ssl.create_default_context(cafile=str(cert))
            owner = ProxiedPlayer(site, trust)
            game = owner.http.post("/api/games", json={"kind": "local"}).json()
            share = owner.http.post(f"/api/games/{game['id']}/share").json()["token"]
            answers = [_get_as_sent(listen, trust, path.format(share)) for path in SPELLINGS]
            assert answers[0] == 409  # the shared route itself (the game is not over yet)
    nginx_log = "".join(log.read_text() for log in tmp_path.glob("*access*.log"))
    app_log = (tmp_path / "app" / "server.log").read_text()
    assert nginx_log.count('"GET /api/shared/... HTTP/1.1" 409') == 2  # %73 and %2F
    assert '"GET /review/... HTTP/1.1" 200' in nginx_log
    assert "/api/shared/…" in app_log
    leaks = [line for line in (nginx_log + app_log).splitlines() if share in line]
    assert leaks == []
