"""The routes of a player's devices (SPEC B6, S1 kept; the secrets: ``players/devices.py``).

- ``GET /api/devices`` — the player's devices (``current``: this browser) and when their
  recovery code was issued (null: none).
- ``POST /api/devices/link`` — a new device link: ``url`` (``/device#<code>``), its ``qr``
  code (an SVG data URI, drawn here by segno so no script of another project runs in the
  page) and ``expires_at``.
- ``POST /api/devices/recovery`` — a new recovery code, shown this once; the old one is
  revoked.
- ``POST /api/devices/sign-in`` ``{"link": code}`` or ``{"recovery": code}`` — this browser
  becomes a new device of that player, with a cookie of its own (the device it was before is
  signed out). 404 ``bad_code`` for a code unknown, used, expired or revoked.
- ``DELETE /api/devices/{id}`` — "sign out this device": its cookie no longer names anyone.

Every unsafe one is refused from another site by the guard (Z6) and counted (Z5: per
player for issuing, per address block for signing in). No code reaches a log.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Any

import segno
from fastapi import APIRouter, Request, Response

from ..addresses import CLIENT_BLOCK
from ..budget import Budget, LimitExceeded, TooManyError
from ..db.database import Database
from ..db.devices import DeviceStore
from ..db.limits import Limiter
from ..games import views
from ..games.service import hash_token, new_id
from ..identity import COOKIE, Known, set_player_cookie
from ..protocol.bodies import SignInBody
from ..records import utcnow
from ..refusal import GameActionError
from .devices import (
    LINK_MINUTES,
    DeviceLimits,
    device_label,
    link_code,
    new_link_code,
    new_recovery_code,
    recovery_code,
)
from .service import Players

log = logging.getLogger("chuhan.devices")
BAD_CODE = "this code is unknown, used, expired or revoked"


def device_router(db: Database, players: Players, limits: DeviceLimits | None = None) -> APIRouter:
    """The devices' routes on ``db``, within ``limits``."""
    limits = limits or DeviceLimits()
    devices = DeviceStore(db.store)
    limiter = Limiter(db.store.engine)
    router = APIRouter()

    async def spend(key: str, limit: int, code: str, message: str) -> None:
        if not limit:
            return
        budget = Budget(limit, limits.window_seconds)
        try:
            await db(limiter.reserve, [(key, budget)])
        except LimitExceeded as exc:
            raise TooManyError(code, message, exc.retry_after) from None

    async def listing(player_id: str, cookie: str | None, user_agent: str) -> dict[str, Any]:
        mine = hash_token(cookie) if cookie else None
        found = await db(devices.devices, player_id)
        for device in found:
            # The first device is made with the player, before any page says what it is.
            if device.token_hash == mine and not device.label and device_label(user_agent):
                await db(devices.label_device, device.id, device_label(user_agent))
                found = await db(devices.devices, player_id)
        issued = await db(devices.recovery_issued, player_id)
        return {
            "devices": [
                {
                    "id": device.id,
                    "label": device.label,
                    "created_at": views.iso_time(device.created_at),
                    "current": device.token_hash == mine,
                }
                for device in found
            ],
            "recovery_issued_at": views.iso_time(issued) if issued else None,
        }

    @router.get("/api/devices")
    async def list_devices(request: Request, player: Known) -> dict[str, Any]:
        return await listing(player.id, *_browser(request))

    @router.post("/api/devices/link", status_code=201)
    async def make_link(request: Request, player: Known) -> dict[str, Any]:
        await spend(
            f"device_links:player:{player.id}",
            limits.links_per_player,
            "too_many_device_codes",
            "you made too many device links; wait a little",
        )
        code = new_link_code()
        expires_at = utcnow() + timedelta(minutes=LINK_MINUTES)
        await db(devices.add_link, player.id, hash_token(code), expires_at)
        url = f"{str(request.base_url).rstrip('/')}/device#{code}"
        return {
            "url": url,
            "qr": segno.make(url, error="m").svg_data_uri(scale=5, border=2),
            "expires_at": views.iso_time(expires_at),
            "minutes": LINK_MINUTES,
        }

    @router.post("/api/devices/recovery", status_code=201)
    async def make_recovery(player: Known) -> dict[str, Any]:
        await spend(
            f"recovery_codes:player:{player.id}",
            limits.recoveries_per_player,
            "too_many_device_codes",
            "you made too many recovery codes; wait a little",
        )
        code = new_recovery_code()
        await db(devices.set_recovery, player.id, hash_token(code))
        log.info("recovery code issued", extra={"player": player.id})
        return {"code": code}

    @router.post("/api/devices/sign-in")
    async def sign_in(body: SignInBody, request: Request, response: Response) -> dict[str, Any]:
        await spend(
            f"sign_ins:address:{CLIENT_BLOCK.get()}",
            limits.sign_ins_per_address,
            "too_many_sign_ins",
            "too many sign-in attempts from your network; wait a little",
        )
        player_id = None
        if body.link is not None and (code := link_code(body.link)):
            player_id = await db(devices.take_link, hash_token(code))
        elif body.recovery is not None and (code := recovery_code(body.recovery)):
            player_id = await db(devices.recovery_player, hash_token(code))
        player = await db(db.store.player, player_id) if player_id else None
        if player is None:
            raise GameActionError("bad_code", BAD_CODE)
        before = request.cookies.get(COOKIE)
        current = await players.player_for_token(before)
        if current is None or current.id != player.id:
            token = secrets.token_urlsafe(32)
            label = device_label(request.headers.get("user-agent", ""))
            replaces = hash_token(before) if before else None
            device = new_id("d")
            await db(devices.add_device, device, player.id, hash_token(token), label, replaces)
            set_player_cookie(request, response, token)
            log.info("device signed in", extra={"player": player.id, "device": device})
        return await players.profile(player)

    @router.delete("/api/devices/{device_id}")
    async def sign_out(device_id: str, request: Request, player: Known) -> dict[str, Any]:
        if len(device_id) > 32 or not await db(devices.remove_device, player.id, device_id):
            raise GameActionError("not_found", "no such device")
        log.info("device signed out", extra={"player": player.id, "device": device_id})
        return await listing(player.id, *_browser(request))

    return router


def _browser(request: Request) -> tuple[str | None, str]:
    """The asking browser's player cookie and ``User-Agent``."""
    return request.cookies.get(COOKIE), request.headers.get("user-agent", "")
