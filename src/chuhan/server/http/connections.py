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
against the proxy's address let one client lock every other out (issue 27). Behind the proxy
each client is counted by address twice over: by the proxy itself (nginx's ``limit_conn``,
``deploy/nginx-chuhan.conf``), and for its WebSockets by the ASGI layer (``guard.py``), once
the client's address is read from the header only a trusted proxy is believed for.

Idle WebSockets are closed by the ASGI layer (``guard.py``), which sees their messages.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

# The address block of the client whose request or socket is being served ("" outside one,
# e.g. the server's own work at start-up); set by the ASGI guard, read by the AI pool's fair
# shares. Tasks started while serving a client inherit it.
CLIENT_BLOCK: ContextVar[str] = ContextVar("chuhan_client_block", default="")


def address_block(host: str) -> str:
    """The unit one client is counted in: an IPv4 address, or the /64 of an IPv6 address
    (one machine often holds a whole /64). Anything else (a Unix socket) counts as itself."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


def trusts(proxies: tuple[str, ...], host: str) -> bool:
    """Whether ``host`` is one of ``proxies``: addresses or networks (``10.0.0.0/8``), ``*``
    for any, anything else (a Unix socket's name) compared as it is; as uvicorn reads
    ``forwarded_allow_ips``, so what is not counted here is what its header is believed for."""
    if "*" in proxies or host in proxies:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for proxy in proxies:
        try:
            if address in ipaddress.ip_network(proxy, strict=False):
                return True
        except ValueError:
            continue
    return False


def network_block(host: str) -> str | None:
    """The /48 of an IPv6 address (one site's, often one customer's), counted besides its
    /64 where one holder of many /64s must not get each one's budget; None for IPv4
    addresses (an IPv4 /24 is often many unrelated customers) and anything else."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if not isinstance(address, ipaddress.IPv6Address) or address.ipv4_mapped is not None:
        return None
    return str(ipaddress.IPv6Network(f"{address}/48", strict=False))


def network_of_block(block: str) -> str | None:
    """The /48 of an address block that is an IPv6 /64 (:func:`address_block`'s), else None."""
    try:
        network = ipaddress.ip_network(block)
    except ValueError:
        return None
    if not isinstance(network, ipaddress.IPv6Network) or network.prefixlen != 64:
        return None
    return str(network.supernet(new_prefix=48))


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

    class GuardedProtocol(base):
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
