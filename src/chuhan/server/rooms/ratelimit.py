"""Password attempts, joins and room creations alike, are limited (SPEC Z3, R2).

Every request that compares a password with the open rooms' is one *attempt*: a join by
password, and a creation with a password (its answer "taken" or "free" tells as much as a
join's "found" or "wrong"). Budgets (:mod:`chuhan.server.limits`, counted in the database for
every instance; defaults per 15 minutes):

- the player (cookie): ``per_player`` (10) attempts, then refused until one is regained;
- the address block (IPv4 address, IPv6 /64): ``per_address`` (30), and for IPv6 its /48:
  ``per_network`` (90). Full, they *slow* their attempts (each waits its turn, up to
  ``max_wait_seconds``; longer: refused with when to retry), so strangers behind one
  address are held back, not shut out;
- the whole site: ``site`` (600), a *gauge*. While it has room an attempt costs it one;
  spent (the site is under attack), it refuses nobody, and each attempt costs instead its
  address block's ``under_attack_per_address`` (3) and its /48's ``under_attack_per_network``
  (6), refused when spent. A guesser with many addresses gets the site's budget and then 3
  per address; a friend or a creator from an address that has not been guessing from has 3
  tries, and needs one (the site's budget used to be a lockout, about 20
  addresses kept every password room shut);
- the room: ``per_room`` (20) attempts that find it (a join that finds it, seated or full,
  and a creation told its password is taken).

An attempt that finds a room is given back to the player, address, network and site: the
right password costs nothing, so a friend typing it from a fresh cookie after others'
failures waits at most one interval and gets in. A room never tells a stranger more than a
join would: creation is counted like a join.
"""

from __future__ import annotations

import time

from ..addresses import address_block, network_block
from ..budget import Budget, LimitExceeded, Reservation
from ..db.limits import Limiter
from ..db.rooms import RoomStore
from ..rules_config import JoinLimits
from .rules import RoomError


class JoinLimiter:
    """The password-attempt budgets of :class:`JoinLimits` (blocking: run off the loop)."""

    def __init__(self, store: RoomStore, limits: JoinLimits) -> None:
        self.store = store
        self.limits = limits
        self.limiter = Limiter(store.engine, limits.max_wait_seconds)
        window = limits.window_seconds
        self._player = Budget(limits.per_player, window)
        self._address = Budget(limits.per_address, window, slows=True)
        self._network = Budget(limits.per_network, window, slows=True)
        self._site = Budget(limits.site, window, gauge=True)
        self._attacked_address = Budget(limits.under_attack_per_address, window)
        self._attacked_network = Budget(limits.under_attack_per_network, window)
        self._room = Budget(limits.per_room, window)

    def attempt(self, player_id: str, address: str) -> Reservation:
        """Take one attempt for this player from this address. Raises LimitExceeded."""
        block, network = address_block(address), network_block(address)
        uses = [
            (f"password:player:{player_id}", self._player),
            (f"password:address:{block}", self._address),
            ("password:site", self._site),
        ]
        attacked = [(f"password:under-attack:address:{block}", self._attacked_address)]
        if network is not None:
            uses.append((f"password:network:{network}", self._network))
            attacked.append((f"password:under-attack:network:{network}", self._attacked_network))
        return self.limiter.reserve(uses, when_full=attacked)

    def found(self, attempt: Reservation, room_id: str) -> None:
        """The attempt found ``room_id``: it costs the player nothing, and counts against the
        room. Raises LimitExceeded when the room has been found too often."""
        self.limiter.refund(attempt)
        self.limiter.reserve([(f"password:room:{room_id}", self._room)])


__all__ = ["JoinLimiter", "LimitExceeded", "Reservation", "SeatLimiter"]


class SeatLimiter:
    """B4: so many changes per window for each seat (a room and a player), counted in this
    instance's memory (a seat's socket is on one instance; a spent budget refuses before
    anything is read or written, so a flood costs no database work and reaches nobody)."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self._tat: dict[tuple[str, str], float] = {}  # each seat's theoretical arrival time

    def take(self, room_id: str, player_id: str, now: float) -> None:
        """One change for this seat at ``now`` (seconds). Raises LimitExceeded."""
        seat = (room_id, player_id)
        tat = max(self._tat.get(seat, now), now)
        late = tat - self.budget.tolerance - now
        if late > 0:
            raise LimitExceeded(late)
        self._tat[seat] = tat + self.budget.interval
        if len(self._tat) > 10_000:  # forget the seats whose budget is whole again
            self._tat = {key: at for key, at in self._tat.items() if at > now}

    def take_now(self, room_id: str, player_id: str, code: str, message: str) -> None:
        """One change for this seat now (B4, B8). Raises RoomError ``code`` (with
        ``retry_after``, whole seconds, at least 1) when the budget is spent."""
        try:
            self.take(room_id, player_id, time.monotonic())
        except LimitExceeded as exc:
            raise RoomError(code, message, retry_after=max(1, round(exc.retry_after))) from None
