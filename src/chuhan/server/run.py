"""``chuhan serve``: the app under uvicorn with JSON-lines logs and connection limits."""

from __future__ import annotations

import contextlib
import resource
import socket
from pathlib import Path

import uvicorn

from .app import create_app
from .http.connections import ConnectionGuard, default_http_protocol, guarded_http_protocol
from .logs import log_config
from .ops.collector import Collector
from .settings import Settings

MAX_WEBSOCKET_FRAME = 64 * 1024  # larger frames close the socket; smaller ones over 4 KiB
# get a protocol error (SPEC Z5)
KEEP_ALIVE_SECONDS = 5  # an idle keep-alive connection between requests


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _raise_open_file_limit() -> None:
    """Every connection is a file: allow as many as the system lets this process have."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def serve(host: str, port: int, data_dir: str) -> int:
    """Run the server until interrupted; returns the exit status."""
    settings = Settings.from_env(data_dir=Path(data_dir))
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings, collector=Collector())  # its own schedule: ops/collector.py
    guard = ConnectionGuard(
        settings.connections_per_address, settings.header_seconds, settings.trusted_proxies
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=log_config(),
        ws_max_size=MAX_WEBSOCKET_FRAME,
        # Messages are small JSON: compressing each costs CPU and a zlib context per socket
        # (memory at thousands of sockets) for little gain.
        ws_per_message_deflate=False,
        http=guarded_http_protocol(default_http_protocol(), guard),
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # X-Forwarded-For and -Proto only from the configured proxies (none by default).
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=list(settings.trusted_proxies) or None,
    )
    _raise_open_file_limit()
    sockets = [config.bind_socket()]
    if settings.ops_port:  # /metrics and /docs on their own port (http/guard.py)
        sockets.append(_listen(settings.ops_host, settings.ops_port))
    uvicorn.Server(config).run(sockets=sockets)
    return 0
