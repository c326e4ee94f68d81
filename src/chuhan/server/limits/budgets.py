"""What one client may create (SPEC Z5, Z7): identities, games, imports, analyses.

Every one of these is a database row (an analysis is also engine time), so each has a budget
(:mod:`..budget`: so many per window, spent and regained evenly, counted in the database for
every instance). Defaults per hour, far above what a person does by hand, and sized for a
school behind one address (150 first visits, 100 students × 6 one-device games, Z5):

- new players (identities) per address block: 300, per IPv6 /48: 600 — a school of 150 all
  get in at once; a cookie-less flood gets 300 and then one more every 12 s (and only the
  site's own pages make players, Z6: ``identity.py``);
- games against the AI or on one device: 100 per player, 1,000 per address block, 2,000
  per /48;
- record imports: 60 per player, 240 per address block, 480 per /48;
- new analyses (asking again for one that exists costs nothing): 60 per player, 240 per
  address block, 480 per /48;
- downloads of a player's games (seconds of a process each, ``players/downloads.py``): 20
  per player, 60 per address block, 120 per /48.

Per identity first: a player's own budget *refuses* when spent. The address block's (an IPv4
address, an IPv6 /64) and its /48's are the backstop against many identities: they *slow*
(each use waits its turn, up to ``max_wait_seconds``), so strangers behind one address are
held back, not shut out, as the password budget does (``rooms/ratelimit.py``); the /48 is
counted so that one holder of many /64s does not get each one's budget. A refusal is ``429``
with a code (``too_many_players``, ``too_many_games``, ``too_many_imports``,
``too_many_analyses``, ``too_many_downloads``), a message and ``retry_after``. Online games
are not counted here: rooms have budgets of their own (open rooms per player, password
attempts).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..addresses import network_of_block
from ..budget import Budget, LimitExceeded, Reservation, TooManyError
from ..db.limits import Limiter
from ..db.store import Store
from ..rules_config import CreationLimits


@dataclass(frozen=True)
class _Kind:
    code: str
    mine: str  # the refusal when the player's own budget is spent
    ours: str  # when the address block's is


KINDS = {
    "players": _Kind(
        "too_many_players",
        "",
        "too many new players from your network; open the site again later",
    ),
    "games": _Kind(
        "too_many_games",
        "you started too many games; wait a little before starting another",
        "too many games were started from your network; wait a little",
    ),
    "imports": _Kind(
        "too_many_imports",
        "you imported too many records; wait a little before importing another",
        "too many records were imported from your network; wait a little",
    ),
    "analyses": _Kind(
        "too_many_analyses",
        "you asked for too many analyses; wait a little before asking for another",
        "too many analyses were asked for from your network; wait a little",
    ),
    "downloads": _Kind(
        "too_many_downloads",
        "you downloaded your games too often; wait a little before the next download",
        "too many downloads were asked for from your network; wait a little",
    ),
}


class CreationBudgets:
    """The budgets of :class:`CreationLimits` (blocking: run off the event loop)."""

    def __init__(self, store: Store, limits: CreationLimits) -> None:
        self.limits = limits
        self.limiter = Limiter(store.engine, limits.max_wait_seconds)

    def _budgets(self, kind: str) -> tuple[int, int, int]:
        """Per player, per address block, per /48."""
        limits = self.limits
        return {
            "players": (0, limits.players_per_address, limits.players_per_network),
            "games": (limits.games_per_player, limits.games_per_address, limits.games_per_network),
            "imports": (
                limits.imports_per_player,
                limits.imports_per_address,
                limits.imports_per_network,
            ),
            "analyses": (
                limits.analyses_per_player,
                limits.analyses_per_address,
                limits.analyses_per_network,
            ),
            "downloads": (
                limits.downloads_per_player,
                limits.downloads_per_address,
                limits.downloads_per_network,
            ),
        }[kind]

    def spend(self, kind: str, player_id: str | None, block: str) -> Reservation | None:
        """Take one ``kind`` use for the player (None: a new player) from address ``block``
        (empty: the server's own) and its /48 when it is an IPv6 /64. Returns the reservation
        (its ``wait``: how long the use must wait for its turn), None when nothing is
        counted. Raises TooManyError."""
        per_player, per_address, per_network = self._budgets(kind)
        window = self.limits.window_seconds
        network = network_of_block(block)
        uses = []
        if player_id and per_player:
            uses.append((f"{kind}:player:{player_id}", Budget(per_player, window)))
        if block and per_address:
            uses.append((f"{kind}:address:{block}", Budget(per_address, window, slows=True)))
        if network and per_network:
            uses.append((f"{kind}:network:{network}", Budget(per_network, window, slows=True)))
        if not uses:
            return None
        try:
            return self.limiter.reserve(uses)
        except LimitExceeded as exc:
            texts = KINDS[kind]
            # Refused by the address block only when the player's own budget had room.
            mine = bool(player_id and per_player and self._own_spent(kind, player_id))
            raise TooManyError(
                texts.code, texts.mine if mine else texts.ours, exc.retry_after
            ) from None

    def _own_spent(self, kind: str, player_id: str) -> bool:
        per_player, _, _ = self._budgets(kind)
        budget = Budget(per_player, self.limits.window_seconds)
        return self.limiter.left(f"{kind}:player:{player_id}", budget) <= 0
