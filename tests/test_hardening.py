"""A server in public (SPEC Z3, Z5): security headers, the WebSocket Origin, body size,
connection limits and timeouts, operator routes, forwarded addresses, secrets in logs.

Each test runs a real ``chuhan serve`` and talks to it as a hostile client would.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from rooms_client import Player, free_port, running_server
from test_server_support import server

WAIT = 15.0


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("hardening")) as url:
        yield url


def _closed_by_server(sock: socket.socket, timeout: float = WAIT) -> bool:
    """Whether the server closes this TCP connection within ``timeout`` (reading all it sends)."""
    sock.settimeout(timeout)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if sock.recv(4096) == b"":
                return True
    except (TimeoutError, ConnectionResetError):
        return False
    return False


def _listen_without_a_word(sock: ClientConnection) -> None:
    """Reads what the server sends (its probes) and never says a word, until the socket closes."""
    while True:
        sock.recv(timeout=WAIT)


def test_every_response_carries_the_security_headers_Z5(site: str) -> None:
    player = Player(site)
    answers = [
        player.http.get("/"),
        player.http.get("/api/me"),
        player.http.get("/static/js/app.js"),
        player.http.get("/static/learn/index.html"),
        player.http.get("/api/nothing"),
        player.http.post("/api/rooms", json={"variant": "nope"}),
        httpx.get(f"{site}/health"),
    ]
    for answer in answers:
        headers = answer.headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp, answer.url
        assert "frame-ancestors 'none'" in csp, answer.url
        assert "unsafe-inline" not in csp
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"


def test_a_websocket_from_a_foreign_origin_is_refused_Z5(site: str) -> None:
    player = Player(site)
    room = player.create_room(variant="xiangqi")
    url = site.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
    cookie = {"Cookie": player.cookie}
    with pytest.raises(InvalidStatus) as refused:
        connect(url, origin=Origin("https://evil.example"), additional_headers=cookie)
    assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        connect(url, origin=Origin("http://127.0.0.1.evil.example"), additional_headers=cookie)
    # The site's own pages (same Origin as the Host asked for) and non-browser clients get in.
    for origin in (site, None):
        with connect(url, origin=origin, additional_headers=cookie) as ws:  # type: ignore[arg-type]
            ws.send('{"type": "ping", "id": "p"}')
            replies = [str(ws.recv(timeout=WAIT)) for _ in range(2)]  # a probe may come first
            assert any('"pong"' in reply for reply in replies)


def test_a_body_over_one_megabyte_is_refused_with_413_before_it_is_read_Z5(site: str) -> None:
    player = Player(site)
    big = b'{"variant": "xiangqi", "padding": "' + b"x" * (1_100_000) + b'"}'
    answer = player.http.post(
        "/api/rooms", content=big, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"variant": "xiangqi", "padding": "'
        for _ in range(40):
            yield b"x" * 32_768
        yield b'"}'

    streamed = player.http.post(
        "/api/rooms", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413
    # A lying Content-Length is refused too; the server goes on serving everyone.
    assert player.http.post("/api/rooms", json={"variant": "xiangqi"}).status_code == 201


def test_idle_connections_and_slow_headers_are_closed_Z5(tmp_path: Path) -> None:
    with running_server(tmp_path, CHUHAN_HEADER_SECONDS="1", CHUHAN_IDLE_SOCKET_SECONDS="2") as url:
        port = int(url.rsplit(":", 1)[1])
        bare = socket.create_connection(("127.0.0.1", port))
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the rest
        assert _closed_by_server(bare)
        assert _closed_by_server(slow)
        bare.close()
        slow.close()

        player = Player(url)
        room = player.create_room(variant="xiangqi")
        address = url.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
        with connect(address, additional_headers={"Cookie": player.cookie}) as quiet:
            with pytest.raises(ConnectionClosed) as closed:
                _listen_without_a_word(quiet)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 4408
        with connect(address, additional_headers={"Cookie": player.cookie}) as talking:
            for number in range(8):  # 4 s of pings, twice the idle limit: still open
                talking.send(f'{{"type": "ping", "id": "p{number}"}}')
                time.sleep(0.5)
            talking.send('{"type": "ping", "id": "last"}')
            while '"last"' not in str(talking.recv(timeout=WAIT)):
                pass  # earlier pongs and probes; a close would raise


def test_connections_per_address_are_limited_Z5(tmp_path: Path) -> None:
    with running_server(tmp_path, CHUHAN_CONNECTIONS_PER_ADDRESS="5") as url:
        player = Player(url)
        room = player.create_room(variant="xiangqi")
        address = url.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
        player.http.close()  # its keep-alive connection would count too
        with contextlib.ExitStack() as stack:
            held = [
                stack.enter_context(connect(address, additional_headers={"Cookie": player.cookie}))
                for _ in range(5)
            ]
            with pytest.raises((OSError, ConnectionClosed, InvalidHandshake)):
                connect(address, additional_headers={"Cookie": player.cookie}, open_timeout=WAIT)
            with pytest.raises(httpx.TransportError):
                httpx.get(f"{url}/health", timeout=WAIT)
            held.pop().close()
            deadline = time.monotonic() + WAIT
            while True:  # the freed place is given back once the server saw the close
                try:
                    assert httpx.get(f"{url}/health", timeout=WAIT).status_code == 200
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)


def test_sockets_behind_a_trusted_proxy_are_counted_per_forwarded_client_Z5_Z7(
    tmp_path: Path,
) -> None:
    """Through the trusted proxy (127.0.0.1) each client's sockets are counted
    by the address it forwards, not against the proxy; a peer that is no trusted proxy
    (127.0.0.2) is counted by its own address whatever header it forges."""
    settings = {"CHUHAN_CONNECTIONS_PER_ADDRESS": "3", "CHUHAN_TRUSTED_PROXIES": "127.0.0.1"}
    with running_server(tmp_path, **settings) as url:
        player = Player(url)
        room = player.create_room(variant="xiangqi")
        address = url.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"
        player.http.close()

        def socket_from(client: str, peer: str = "127.0.0.1") -> Any:
            headers = {"Cookie": player.cookie, "X-Forwarded-For": client}
            return connect(
                address, additional_headers=headers, source_address=(peer, 0), open_timeout=WAIT
            )

        with contextlib.ExitStack() as stack:
            for _ in range(3):
                stack.enter_context(socket_from("203.0.113.5"))
            with pytest.raises(InvalidStatus) as refused:
                socket_from("203.0.113.5")
            assert refused.value.response.status_code == 429
            assert b"too_many_connections" in refused.value.response.body
            for _ in range(3):  # another client through the same proxy: its own count
                stack.enter_context(socket_from("203.0.113.6"))
            for number in range(3):  # not the proxy: a header of its own changes nothing
                stack.enter_context(socket_from(f"198.51.100.{number}", peer="127.0.0.2"))
            with pytest.raises((OSError, ConnectionClosed, InvalidHandshake)):
                socket_from("198.51.100.9", peer="127.0.0.2")


def test_operator_routes_are_off_the_app_port_and_on_their_own_Z5(tmp_path: Path) -> None:
    ops_port = free_port()
    with running_server(tmp_path, CHUHAN_OPS_PORT=str(ops_port)) as url:
        for path in ("/metrics", "/docs", "/openapi.json", "/redoc"):
            assert httpx.get(f"{url}{path}").status_code == 404, path
        ops = f"http://127.0.0.1:{ops_port}"
        assert "chuhan_moves_total" in httpx.get(f"{ops}/metrics").text
        assert "/api/me" in httpx.get(f"{ops}/openapi.json").json()["paths"]


def test_static_serves_only_the_front_ends_files_Z5(tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "tools").mkdir()
    (web / "index.html").write_text("<!doctype html><title>Chu-Han</title>")
    (web / "js" / "app.js").write_text("export {}")
    (web / "tools" / "make_glyphs.py").write_text("print('a tool')")
    (web / ".env").write_text("SECRET=1")
    with server(tmp_path, web_dir=web) as (client, _, _):
        assert client.get("/static/js/app.js").status_code == 200
        for path in ("/static/tools/make_glyphs.py", "/static/.env", "/static/tools/"):
            assert client.get(path).status_code == 404, path


def test_forwarded_addresses_only_from_configured_proxies_and_no_tokens_in_logs_Z3(
    tmp_path: Path,
) -> None:
    spoofed = {"X-Forwarded-For": "203.0.113.9"}
    (tmp_path / "direct").mkdir()
    (tmp_path / "proxied").mkdir()
    with running_server(tmp_path / "direct") as url:
        httpx.get(f"{url}/health", headers=spoofed)
        httpx.get(f"{url}/room/i/SecretInviteToken123")
        httpx.post(f"{url}/api/rooms/invite/SecretInviteToken456")
        httpx.get(f"{url}/health?token=SecretQuery789")
        httpx.get(f"{url}/api/shared/SecretShareToken1")
        httpx.get(f"{url}/review/SecretShareToken2")
    log = (tmp_path / "direct" / "server.log").read_text()
    assert "127.0.0.1" in log
    assert "203.0.113.9" not in log
    assert "SecretInviteToken" not in log
    assert "SecretQuery" not in log
    assert "SecretShareToken" not in log
    assert "/room/i/…" in log
    with running_server(tmp_path / "proxied", CHUHAN_TRUSTED_PROXIES="127.0.0.1") as url:
        httpx.get(f"{url}/health", headers=spoofed)
    assert "203.0.113.9" in (tmp_path / "proxied" / "server.log").read_text()
