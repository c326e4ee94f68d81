"""Faults a test stages in a running server (never set in production).

``CHUHAN_TEST_DIE_AFTER_MOVE_PLY`` (``Settings.die_after_move_ply``): the instance kills
itself (SIGKILL) right after committing a move at that ply or later, before announcing it,
as a crash between the two would (SPEC Z4: the move counts, the other instances and the
reconnecting clients learn it from the database). ``create_app`` installs the observer only
when the setting asks for it; the game service's commit path knows nothing of it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

from ..records import Change


def die_after_move(ply: int) -> Callable[[Change], None]:
    """An observer of committed changes that kills this process once a change plays a move
    at ``ply`` or later (committed, never announced)."""

    def observe(change: Change) -> None:
        if any(event["type"] == "move" and int(event["ply"]) >= ply for event in change.events):
            os.kill(os.getpid(), signal.SIGKILL)

    return observe
