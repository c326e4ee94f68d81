"""Who is asking: the player of a request or a socket, from the ``chuhan_player`` cookie
(SPEC S1, Z6; docs/protocol.md, Identity).

The one place a player is read or made. :func:`known_player` only reads (every socket, every
unsafe request); :func:`current_player`, the routes' dependency (:data:`Me`), makes a new
player for a safe request without a valid cookie, within the address block's budget of new
players, and refuses an unsafe one with 401 ``no_player`` (Z6: no request
another site sends replaces the visitor's cookie). Only a request of the site's own pages
makes a player (Z6): another site's ``<img src=/api/me>`` makes none and spends nothing of
the address's budget (:func:`from_own_page`). :func:`known_player_or_refuse`
(:data:`Known`) refuses every request without a known player (the rooms' routes: a room is
never anyone's first page).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Protocol
from urllib.parse import urlsplit

from fastapi import Depends, Request, Response

from .origins import CLIENT_HEADER, foreign_request, same_site
from .records import Player
from .refusal import GameActionError


class Players(Protocol):
    """Where players are found and made (the app's :class:`~.players.service.Players`)."""

    async def player_for_token(self, token: str | None) -> Player | None: ...

    async def new_player(self) -> tuple[Player, str]: ...


COOKIE = "chuhan_player"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
NO_PLAYER_MESSAGE = "open the home page first to get a player identity"


async def known_player(service: Players, cookies: Mapping[str, str]) -> Player | None:
    """The cookie's player, or None (no cookie, or one the server does not know)."""
    return await service.player_for_token(cookies.get(COOKIE))


def no_player() -> GameActionError:
    """The refusal of a request or socket without a known player (401 over HTTP)."""
    return GameActionError("no_player", NO_PLAYER_MESSAGE)


async def known_player_or_refuse(request: Request) -> Player:
    """The cookie's player; 401 ``no_player`` without one, whatever the method."""
    player = await known_player(request.app.state.players, request.cookies)
    if player is None:
        raise no_player()
    return player


def from_own_page(request: Request, allowed: tuple[str, ...]) -> bool:
    """SPEC Z6: whether a request may make a player: the front end's own (its header, which
    no image, form or no-cors fetch can add), or one a browser says comes from no other
    origin (``Sec-Fetch-Site`` ``same-origin`` or ``none``; ``same-site``, another port of
    the host, is another origin). Without ``Sec-Fetch-Site`` (not a browser, or one too old
    to send it) an ``Origin`` or ``Referer`` of another origin refuses it too."""
    if request.headers.get(CLIENT_HEADER.decode()) is not None:
        return True
    if foreign_request(request.scope, allowed):
        return False
    referer = request.headers.get("referer")
    if referer is None or request.headers.get("sec-fetch-site") is not None:
        return True
    page = urlsplit(referer)
    origin = f"{page.scheme}://{page.netloc}"
    return same_site(origin, request.headers.get("host"), request.url.scheme, allowed)


async def current_player(request: Request, response: Response) -> Player:
    """SPEC S1: the cookie's player, or a new player with a new cookie. SPEC Z6: only a safe
    request of the site's own pages makes one (the front end reads /api/me as it opens); an
    unsafe request without a valid cookie, or another site's (an image, a link), is refused
    (401 ``no_player``) before anything is spent, so no request another site sends replaces
    the visitor's cookie or uses up the address's new players."""
    service: Players = request.app.state.players
    player = await known_player(service, request.cookies)
    if player is not None:
        return player
    if request.method not in SAFE_METHODS:
        raise no_player()
    if not from_own_page(request, request.app.state.allowed_origins):
        raise no_player()
    player, token = await service.new_player()  # 429 once the address block made too many
    set_player_cookie(request, response, token)
    return player


def set_player_cookie(request: Request, response: Response, token: str) -> None:
    """Give the browser the player cookie (S1): a year, not readable by scripts, sent on
    same-site navigations only, secure when the request came over HTTPS."""
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


Me = Annotated[Player, Depends(current_player)]
Known = Annotated[Player, Depends(known_player_or_refuse)]
