"""Join-by-password attempts are limited per player and per address (SPEC Z3).

Failed attempts are counted in the database (so every server instance sees them) over a
sliding window; when either count reaches its limit, joining by password is refused until
the window has moved on. The answer always says how many tries remain.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..storage import utcnow
from .store import RoomStore, window_start


@dataclass(frozen=True)
class JoinLimits:
    per_player: int = 10
    per_address: int = 30
    window_seconds: float = 15 * 60


class JoinLimiter:
    def __init__(self, store: RoomStore, limits: JoinLimits) -> None:
        self.store = store
        self.limits = limits

    def _keys(self, player_id: str, address: str) -> list[str]:
        return [f"player:{player_id}", f"address:{address[:64]}"]

    def remaining(self, player_id: str, address: str) -> int:
        """How many failed attempts this player may still make from this address now."""
        keys = self._keys(player_id, address)
        counts = self.store.count_attempts(keys, window_start(utcnow(), self.limits.window_seconds))
        return max(
            0,
            min(
                self.limits.per_player - counts[keys[0]],
                self.limits.per_address - counts[keys[1]],
            ),
        )

    def failed(self, player_id: str, address: str) -> int:
        """Count a failed attempt; returns the tries that remain."""
        now = utcnow()
        self.store.record_attempt(
            self._keys(player_id, address), now, window_start(now, self.limits.window_seconds)
        )
        return self.remaining(player_id, address)
