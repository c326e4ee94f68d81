"""Who plays whom (SPEC B1) as pure functions: no database, no clock, no socket.

A *seek* is one player waiting for a stranger: a variant and its rule options (janggi:
bikjang ``off``/``points``, J7; xiangqi and jieqi: ``casual``/``wxf`` repetition rules, E1),
and a game length (B7: ``clock``, one of :mod:`..rooms.timecontrols`; R4's turn clock when
not given). Two seeks are *compatible* when they ask for the same game (the same *pool*:
variant, rule option and clock) and come from two different players. The store keeps one
seek per player (two tabs of one cookie are one seek) and runs :func:`pairs` over a pool's
waiting seeks inside one site-wide transaction (:data:`RULES`, handed to the store: storage
reads and writes, these rules decide), so a player is never paired with themselves or twice.

"Nearest in rating": the oldest seek is served first (the first compatible player waiting),
and among the others it takes the one nearest in rating, the longest waiting on a tie. Run
over a whole pool, at most one seek is left waiting in it: nobody waits while a compatible
player waits.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from ..records import Seek
from ..refusal import SeekError
from ..rooms import timecontrols

VARIANTS = ("xiangqi", "janggi", "jieqi")
# The option each variant is sought with, its allowed values, the default first.
OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "xiangqi": ("rules", ("casual", "wxf")),
    "jieqi": ("rules", ("casual", "wxf")),
    "janggi": ("bikjang", ("off", "points")),
}


@dataclass(frozen=True)
class Wish:
    """What a player seeks: the variant, its one rule option and, when not R4's turn clock,
    its game clock (``clock``, B7), checked (:func:`wish`). The options go on to the room."""

    variant: str
    options: dict[str, str]

    @property
    def pool(self) -> str:
        """The key every compatible seek shares, e.g. ``janggi:bikjang=points`` or, with a
        game clock, ``xiangqi:rules=casual:clock=5+3`` (B7: pools per clock too)."""
        name, _ = OPTIONS[self.variant]
        clock = self.options.get("clock")
        pool = f"{self.variant}:{name}={self.options[name]}"
        return f"{pool}:clock={clock}" if clock else pool


def wish(variant: Any, options: Mapping[str, Any] | None) -> Wish:
    """The seek a client asked for, checked (Z5). Raises SeekError ``bad_seek`` naming what
    is wrong: an unknown variant, an unknown option, a value the variant does not allow, or
    a clock it does not offer (B7)."""
    if variant not in VARIANTS:
        raise SeekError("bad_seek", "variant must be xiangqi, janggi or jieqi")
    name, allowed = OPTIONS[variant]
    given = dict(options or {})
    unknown = sorted(set(given) - {name, "clock"})
    if unknown:
        raise SeekError(
            "bad_seek", f"{variant} takes only the option {name!r} and a clock, not {unknown[0]!r}"
        )
    value = given.get(name, allowed[0])
    if value not in allowed:
        raise SeekError("bad_seek", f"{name} must be {' or '.join(allowed)} in {variant}")
    try:
        clock = timecontrols.choose(variant, given.get("clock"))
    except timecontrols.TimeControlError as exc:
        raise SeekError("bad_seek", str(exc)) from None
    return Wish(variant, {name: value, "clock": clock} if clock else {name: value})


def compatible(a: Seek, b: Seek, apart: Collection[frozenset[str]] = ()) -> bool:
    """B1: the same game asked for, by two different players (never one with themselves);
    Z8: not a pair in ``apart`` (one of them just aborted a game against the other)."""
    return (
        a.pool == b.pool
        and a.player_id != b.player_id
        and frozenset((a.player_id, b.player_id)) not in apart
    )


def nearest(
    seeker: Seek, waiting: Sequence[Seek], apart: Collection[frozenset[str]] = ()
) -> Seek | None:
    """The compatible seek nearest to ``seeker`` in rating (the longest waiting on a tie),
    or None when no one compatible waits."""
    candidates = [other for other in waiting if compatible(seeker, other, apart)]
    if not candidates:
        return None
    return min(candidates, key=lambda other: (abs(other.rating - seeker.rating), other.since))


def pairs(
    waiting: Sequence[Seek], apart: Collection[frozenset[str]] = ()
) -> list[tuple[Seek, Seek]]:
    """Pair a pool's waiting seeks: the longest waiting first, each with :func:`nearest`
    among those still free. No seek is in two pairs (B1: never twice), no pair is one player
    (never with themselves) nor one of ``apart`` (Z8), and whatever is left has no
    compatible seek left beside it."""
    free = sorted(waiting, key=lambda seek: (seek.since, seek.player_id))
    made: list[tuple[Seek, Seek]] = []
    while free:
        seeker = free.pop(0)
        other = nearest(seeker, free, apart)
        if other is None:
            continue
        made.append((seeker, other))
        taken = (seeker.player_id, other.player_id)  # with any other seek of theirs
        free = [seek for seek in free if seek.player_id not in taken]
    return made


# ---------------------------------------------------------------------- aborts (Z8)

# Leaving a paired game before one's own first move (or letting that turn's clock run out)
# ends it abandoned, unrated (B1); what it costs instead is time: the leaver waits before
# seeking again, the wait doubling with each abort remembered, counted per player and per
# address block (so fresh cookies from one address pay as one), and the pair is not paired
# together again for a while. Nothing of it depends on who the opponent was: leaving every
# opponent but one's target costs as much as leaving anyone.
FIRST_COOLDOWN_SECONDS = 15.0
MAX_COOLDOWN_SECONDS = 3600.0
PLAYER_MEMORY = timedelta(hours=24)  # a player's aborts count this long
BLOCK_MEMORY = timedelta(hours=1)  # an address block's (shared by a classroom): shorter
PAIR_APART = timedelta(minutes=15)  # a pair that aborted is not paired together again


def cooldown_seconds(aborts: int) -> float:
    """Z8: the wait after the ``aborts``-th abort remembered: 15 s, doubling with each one
    up to an hour (0 for none)."""
    if aborts <= 0:
        return 0.0
    return min(MAX_COOLDOWN_SECONDS, FIRST_COOLDOWN_SECONDS * 2.0 ** min(aborts - 1, 20))


def cooling_until(aborts: Sequence[datetime]) -> datetime | None:
    """When the wait after these aborts (one player's, or one address block's, within its
    memory) ends: the last one plus :func:`cooldown_seconds` of their number. None: none."""
    if not aborts:
        return None
    return max(aborts) + timedelta(seconds=cooldown_seconds(len(aborts)))


class Whence(Protocol):
    """Where a seek comes from (:class:`~..db.seeks.Origin`): player, address block, /48."""

    @property
    def player_id(self) -> str: ...
    @property
    def block(self) -> str | None: ...
    @property
    def network(self) -> str | None: ...


class AbortSeen(Whence, Protocol):
    """An abort remembered (a ``seek_aborts`` row, :class:`~..db.seeks.Abort`): where its
    seek came from, the opponent left, and when."""

    @property
    def opponent_id(self) -> str: ...
    @property
    def at(self) -> datetime: ...


class Cooldowns:
    """The aborts remembered of some seeks' players and addresses at ``now`` (Z8): when each
    one's wait ends, and the pairs kept apart."""

    def __init__(self, aborts: Iterable[AbortSeen], now: datetime) -> None:
        times: dict[tuple[str, str], list[datetime]] = {}
        self._apart: set[frozenset[str]] = set()
        for abort in aborts:
            at = abort.at
            times.setdefault(("player", abort.player_id), []).append(at)
            if at >= now - BLOCK_MEMORY:
                for kind, key in (("block", abort.block), ("network", abort.network)):
                    if key is not None:
                        times.setdefault((kind, key), []).append(at)
            if at >= now - PAIR_APART:
                self._apart.add(frozenset((abort.player_id, abort.opponent_id)))
        self._until = {key: cooling_until(found) for key, found in times.items()}

    @property
    def apart(self) -> Collection[frozenset[str]]:
        """The pairs not paired together again yet (one just aborted against the other)."""
        return self._apart

    def until(self, origin: Whence) -> datetime | None:
        """When the wait of this player and address ends (the latest of the three)."""
        keys = [("player", origin.player_id), ("block", origin.block), ("network", origin.network)]
        ends = [
            end for kind, key in keys if key is not None and (end := self._until.get((kind, key)))
        ]
        return max(ends) if ends else None


class PairingRules:
    """The rules the seeks' store runs inside its transactions (:class:`~..db.seeks.Rules`):
    how long an abort is remembered, the cooldowns it makes, and who is paired with whom."""

    abort_memory = PLAYER_MEMORY

    def cooldowns(self, aborts: Iterable[AbortSeen], now: datetime) -> Cooldowns:
        return Cooldowns(aborts, now)

    def pairs(
        self, waiting: Sequence[Seek], apart: Collection[frozenset[str]]
    ) -> list[tuple[Seek, Seek]]:
        return pairs(waiting, apart)


RULES = PairingRules()
