"""Online rooms: play a friend by password or invite link (SPEC R1–R8, Z1–Z4).

``routes.rooms_router(game_service)`` gives the HTTP routes and the room WebSocket; the app
factory includes it. ``service.RoomService`` is what they call; the room rules are pure
functions in ``rules`` and ``scoring``. See docs/protocol.md, section "Rooms".
"""
