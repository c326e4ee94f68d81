"""Online rooms: play a friend by password or invite link (SPEC R1–R8, Z1–Z3).

``rooms_router(game_service)`` gives the HTTP routes and the room WebSocket; the app factory
includes it. See docs/protocol.md, section "Rooms".
"""

from .routes import rooms_router
from .service import RoomService, RoomSettings

__all__ = ["RoomService", "RoomSettings", "rooms_router"]
