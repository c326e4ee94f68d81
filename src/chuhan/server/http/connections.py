"""Connection limits below the ASGI app (SPEC Z5): what uvicorn leaves open.

uvicorn gives a connection no deadline until its first request is complete, and counts no
connections per client. :func:`guarded_http_protocol` wraps uvicorn's HTTP protocol class so
that each connection

- counts against its client's address block (an IPv4 address, an IPv6 /64): beyond
  ``per_address`` open connections (WebSockets included) a new one takes the place of the
  block's oldest connection that is between requests (never sent one, or idle after its
  response: nothing of anyone's is cut short), and is closed at once when there is none. So
  one client behind a shared address cannot keep the others out with bare connections
  while the ASGI layer holds WebSockets below ``per_address`` (``guard.py``): a seated
  player's reconnection always finds a connection to come in on (SPEC Z8);
- must finish each request's headers within ``header_seconds`` of opening, or of the end of
  its previous response (a bare TCP connection or a slow-header client is closed).

A connection from a trusted proxy (``trusted_proxies``, the settings' ``CHUHAN_TRUSTED_PROXIES``)
is not counted here: it carries many clients' requests and sockets, and counting them all
against the proxy's address let one client lock every other out. Behind the proxy
each client is counted by address twice over: by the proxy itself (nginx's ``limit_conn``,
``deploy/nginx-chuhan.conf``), and for its WebSockets by the ASGI layer (``guard.py``), once
the client's address is read from the header only a trusted proxy is believed for.

Idle WebSockets are closed by the ASGI layer (``guard.py``), which sees their messages.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..addresses import address_block, trusts


@dataclass
class ConnectionGuard:
    """Open connections per address block, shared by every connection of one server;
    connections from ``trusted_proxies`` are not counted (see the module docstring).
    ``waiting``: per block, the connections that may give their place up (oldest first)."""

    per_address: int = 320
    header_seconds: float = 10.0
    trusted_proxies: tuple[str, ...] = ()
    open: Counter[str] = field(default_factory=Counter)
    waiting: dict[str, dict[Any, None]] = field(default_factory=dict)

    def admit(self, block: str, connection: Any = None) -> bool:
        """Count one more connection of ``block``; when it is full, ``connection`` takes
        the place of the block's oldest one between requests (closed, its count handed
        over). False: no place."""
        if self.open[block] < self.per_address:
            self.open[block] += 1
            self._wait(block, connection)
            return True
        for older in list(self.waiting.get(block, ())):
            if older.between_requests():
                self._forget(block, older)
                older.give_place_up()
                self._wait(block, connection)
                return True
        return False

    def release(self, block: str, connection: Any = None) -> None:
        self._forget(block, connection)
        self.open[block] -= 1
        if self.open[block] <= 0:
            del self.open[block]

    def busy(self, block: str, connection: Any) -> None:
        """``connection`` will not give its place up any more (it became a WebSocket)."""
        self._forget(block, connection)

    def _wait(self, block: str, connection: Any) -> None:
        if connection is not None:
            self.waiting.setdefault(block, {})[connection] = None

    def _forget(self, block: str, connection: Any) -> None:
        kept = self.waiting.get(block)
        if kept is not None and connection in kept:
            del kept[connection]
            if not kept:
                del self.waiting[block]


def guarded_http_protocol(base: type[Any], guard: ConnectionGuard) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's h11 or httptools protocol) with ``guard``'s limits."""

    class GuardedProtocol(base):  # type: ignore[misc]  # uvicorn's protocol classes are untyped
        _block: str | None = None
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            peer = self.client[0] if self.client else "unknown"
            if not trusts(guard.trusted_proxies, peer):
                block = address_block(peer)
                if not guard.admit(block, self):
                    transport.abort()
                    return
                self._block = block
            self._arm_header_timer()

        def between_requests(self) -> bool:
            """No request of this connection is being answered (none sent yet, or its last
            one answered in full, its headers perhaps half sent)."""
            cycle, queued = self.cycle, getattr(self, "pipeline", None)
            answered = cycle is None or (cycle.response_complete and not queued)
            return answered and not self.transport.is_closing()

        def give_place_up(self) -> None:
            """Closed for a newer connection of the block, which took its count over."""
            self._block = None
            self._disarm_header_timer()
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_timer()
            self._release()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_header_timer()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            """The WebSocket protocol takes the transport over: it carries the count on and
            gives it back when that connection is lost."""
            self._disarm_header_timer()
            super().handle_websocket_upgrade(*args)
            block, self._block = self._block, None
            socket_protocol = self.transport.get_protocol()
            if block is None or socket_protocol is self:
                self._block = block
                return
            guard.busy(block, self)
            lost = socket_protocol.connection_lost

            def release_then_lost(exc: Exception | None) -> None:
                guard.release(block)
                lost(exc)

            socket_protocol.connection_lost = release_then_lost

        def _release(self) -> None:
            if self._block is not None:
                guard.release(self._block, self)
                self._block = None

        def _arm_header_timer(self) -> None:
            self._disarm_header_timer()
            waiting_for = self.cycle  # a new request replaces the cycle
            self._header_timer = self.loop.call_later(
                guard.header_seconds, self._headers_too_slow, waiting_for
            )

        def _disarm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self, waiting_for: Any) -> None:
            self._header_timer = None
            if self.cycle is waiting_for and not self.transport.is_closing():
                self.transport.close()

    GuardedProtocol.__name__ = f"Guarded{base.__name__}"
    return GuardedProtocol


def default_http_protocol() -> type[Any]:
    """The class uvicorn's ``http="auto"`` would pick: httptools when installed, else h11."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is in uvicorn[standard]
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol
    return HttpToolsProtocol
