"""The ASGI layer in front of the app: what every request and socket goes through (SPEC Z5).

- Security headers on every HTTP response: a strict Content-Security-Policy (the front end
  loads only its own files; no inline script or style), ``frame-ancestors 'none'`` and
  ``X-Frame-Options``, ``nosniff``, ``Referrer-Policy: no-referrer`` (invite links carry
  their token in the path).
- Request bodies over ``max_body_bytes`` get 413 before they are read whole: at once when
  ``Content-Length`` says so, else as soon as the bytes read pass the limit.
- A WebSocket whose ``Origin`` is not this site's own (nor listed in ``allowed_origins``) is
  refused before it is accepted; clients that send no Origin (not browsers) are let in.
- SPEC Z6: an unsafe request (POST, PUT, PATCH, DELETE) whose ``Origin`` is not
  this site's own (nor allowed), or, without an Origin, whose ``Sec-Fetch-Site`` is not
  ``same-origin``, gets 403 ``foreign_origin``: another site's form or ``no-cors`` fetch, and
  another port of the same host, cannot act as the visitor. An unsafe request with a body
  type an HTML form can send (urlencoded, multipart, text/plain) also needs the
  ``X-Chuhan-Client`` header, which only a same-origin script can add (415 ``form_body``):
  a browser too old to say where a request comes from still cannot post a form here.
- A WebSocket that sends nothing for ``idle_socket_seconds`` is closed (the front end pings
  every 20 s; room sockets also answer probes).
- Open WebSockets are counted per client address block, the address a trusted proxy
  forwarded (``connections.py``): beyond ``sockets_per_address`` a new one is refused with
  429 ``too_many_connections`` before it is accepted. Behind a proxy, this is what holds one
  client to its share of an instance while everyone else comes through the same proxy;
  without one, it keeps WebSockets below the connection limit under the app, so
  that a new connection always finds one between requests to take the place of.
- SPEC Z8: a socket of a player seated in a running game, to that game's room, is let in
  though its address is full (``seat_of``, :mod:`.seats`): one such place per seat, so a NAT
  neighbour holding every socket of the address cannot keep a seated player from their game
  and make them lose on time. A newer socket of the seat takes the place over (the older one
  is closed with 4409: its network is most likely gone, and its server side would otherwise
  hold the place until it goes idle).
- Operator routes (``/metrics``, ``/docs``, ``/openapi.json``…) answer 404 unless the request
  came in on the operator port (``ops_port``) or ``ops_on_app_port`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..addresses import CLIENT_BLOCK, address_block
from ..origins import foreign_request, form_body, header, same_site
from ..protocol.errors import error_body, http_status
from .connections import ConnectionGuard

CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "media-src 'self' data: blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
OPS_PATHS = ("/metrics", "/docs", "/redoc", "/openapi.json")
UNSAFE_METHODS = frozenset(("POST", "PUT", "PATCH", "DELETE"))
IDLE_CLOSE = 4408  # the socket said nothing for too long
ORIGIN_CLOSE = 4403
TOO_MANY_CLOSE = 4429  # more open sockets than the client's address may have
# A newer socket of the same seat took this one's place (Z8): the code of a seat moved to
# another device (R7, rooms/connection.py), after which the front end does not reconnect, so
# two tabs of one seat on a full address do not take the place from each other in turn.
SUPERSEDED_CLOSE = 4409


@dataclass(frozen=True)
class GuardSettings:
    max_body_bytes: int = 64 * 1024
    idle_socket_seconds: float = 120.0
    allowed_origins: tuple[str, ...] = ()
    ops_port: int | None = None
    ops_on_app_port: bool = False
    sockets_per_address: int = 256


# Which seat of a running game the socket asked for is its player's, as a key ("room:player"),
# or None (Z8; :mod:`.seats`).
SeatOf = Callable[[Scope], Awaitable[str | None]]


def _is_ops_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in OPS_PATHS)


class Guard:
    """The pure ASGI middleware described in the module docstring."""

    def __init__(
        self, app: ASGIApp, settings: GuardSettings, seat_of: SeatOf | None = None
    ) -> None:
        self.app = app
        self.settings = settings
        self.sockets = ConnectionGuard(per_address=settings.sockets_per_address)
        self.seat_of = seat_of
        # The seats whose socket came in over the count (Z8), each with what closes it.
        self.seated: dict[str, Callable[[], Awaitable[None]]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            CLIENT_BLOCK.set(address_block(client[0]) if client else "")
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _ops_allowed(self, scope: Scope) -> bool:
        if self.settings.ops_on_app_port:
            return True
        server = scope.get("server") or (None, None)
        return self.settings.ops_port is not None and server[1] == self.settings.ops_port

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        if _is_ops_path(scope["path"]) and not self._ops_allowed(scope):
            await _plain(send_with_headers, "not_found", "no such page")
            return
        if scope["method"] in UNSAFE_METHODS:
            if foreign_request(scope, self.settings.allowed_origins):
                message = "a page of another site cannot act for this site's players"
                await _plain(send_with_headers, "foreign_origin", message)
                return
            if form_body(scope):
                message = "a form's body type needs the X-Chuhan-Client header"
                await _plain(send_with_headers, "form_body", message)
                return
        limit = self.settings.max_body_bytes
        length = header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _plain(send_with_headers, "too_large", f"the body exceeds {limit} bytes")
            return
        answered = False
        started = False
        read = 0

        async def limited_receive() -> Message:
            nonlocal answered, read
            if answered:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > limit:
                    if not started:
                        answered = True
                        await _plain(
                            send_with_headers, "too_large", f"the body exceeds {limit} bytes"
                        )
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if answered:
                return  # the app's answer to a body it could not read whole
            started = True
            await send_with_headers(message)

        await self.app(scope, limited_receive, guarded_send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = header(scope, b"origin")
        host = header(scope, b"host")
        scheme = scope.get("scheme", "ws")
        allowed = self.settings.allowed_origins
        if origin is not None and not same_site(origin, host, scheme, allowed):
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": ORIGIN_CLOSE})
            return
        block = CLIENT_BLOCK.get()
        if self.sockets.admit(block):
            try:
                await self._open_websocket(scope, receive, send)
            finally:
                self.sockets.release(block)
            return
        seat = await self.seat_of(scope) if self.seat_of is not None else None
        if seat is None:
            await receive()  # websocket.connect
            await _refuse_socket(scope, send, self.sockets.per_address)
            return
        older = self.seated.pop(seat, None)
        if older is not None:
            await older()

        held: list[Callable[[], Awaitable[None]]] = []

        def hold(close: Callable[[], Awaitable[None]]) -> None:
            held.append(close)
            self.seated[seat] = close  # Z8: the seat's own place, beyond the address's count

        try:
            await self._open_websocket(scope, receive, send, hold)
        finally:
            if held and self.seated.get(seat) is held[0]:  # not yet taken over by a newer one
                del self.seated[seat]

    async def _open_websocket(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        hold: Callable[[Callable[[], Awaitable[None]]], None] | None = None,
    ) -> None:
        """Runs the socket, closing it when idle; ``hold`` is given what closes it for a
        newer socket of the same seat."""
        idle = self.settings.idle_socket_seconds
        closed = False

        async def close_for_newer() -> None:
            nonlocal closed
            if not closed:
                closed = True
                with contextlib.suppress(Exception):  # already going: nothing to close
                    await send({"type": "websocket.close", "code": SUPERSEDED_CLOSE})

        if hold is not None:
            hold(close_for_newer)

        async def idle_receive() -> Message:
            nonlocal closed
            if closed:
                return {"type": "websocket.disconnect", "code": IDLE_CLOSE}
            try:
                # A timer moved along, not a task per message (wait_for): every socket's every
                # message comes through here.
                async with asyncio.timeout(idle):
                    return await receive()
            except TimeoutError:
                closed = True
                await send({"type": "websocket.close", "code": IDLE_CLOSE, "reason": "idle"})
                return {"type": "websocket.disconnect", "code": IDLE_CLOSE}

        async def guarded_send(message: Message) -> None:
            if not closed:
                await send(message)

        await self.app(scope, idle_receive, guarded_send)


async def _plain(send: Send, code: str, message: str, kind: str = "http") -> None:
    """An error answer in the API's one shape and its code's status (the app's handlers
    are not reached from here); ``kind`` ``websocket.http``: a WebSocket's refused handshake."""
    status = http_status(code)
    body = json.dumps(error_body(code, message)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 413:
        headers.append((b"connection", b"close"))
    await send({"type": f"{kind}.response.start", "status": status, "headers": headers})
    await send({"type": f"{kind}.response.body", "body": body})


async def _refuse_socket(scope: Scope, send: Send, most: int) -> None:
    """429 for a WebSocket over its client's count (a bare close, which the client sees as
    403, where the server cannot answer a handshake with a response of its own)."""
    if "websocket.http.response" in scope.get("extensions", {}):
        message = f"at most {most} open sockets per address"
        await _plain(send, "too_many_connections", message, kind="websocket.http")
    else:
        await send({"type": "websocket.close", "code": TOO_MANY_CLOSE})


def guard_settings(values: Any) -> GuardSettings:
    """The guard's part of the server :class:`~chuhan.server.settings.Settings`."""
    return GuardSettings(
        max_body_bytes=values.max_body_bytes,
        idle_socket_seconds=values.idle_socket_seconds,
        allowed_origins=tuple(values.allowed_origins),
        ops_port=values.ops_port,
        ops_on_app_port=values.ops_on_app_port,
        # Below the connection limit under the app (connections.py), which then always has
        # a connection between requests to give up for a newcomer.
        sockets_per_address=min(values.sockets_per_address, values.connections_per_address),
    )
