"""The server's clocks for online games (SPEC R4, R7, B7): pure arithmetic on moments.

A turn's deadline is its start plus the turn time plus a lag allowance: the measured
one-way network delay of the player to move, capped so that no one can buy time with a slow
link. While both players are away the turn waits: the time spent is drawn from a budget
shared by the whole game and added to the deadline when someone comes back.

A game clock (B7, :mod:`.timecontrols`) keeps each side's time left (``left``, and in
janggi byoyomi the periods left, ``periods_left``) and puts the turn's deadline where the
mover's time runs out. A move charges the mover what is left before the deadline, so every
credit that moved the deadline (a wait of both players away, a server outage, news that
could not cross, Z4) is charged to no one here either. Each side's first move runs on R4's
turn time and leaves its time untouched (the clocks start once both have moved), so an
unbegun game ends exactly as a turn-clock game does.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from ..records import parse_iso
from ..rules_config import ClockRules
from .timecontrols import TimeControl


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def new_clock(
    rules: ClockRules,
    now: datetime,
    measured_lag: float | None,
    control: TimeControl | None = None,
) -> dict[str, Any]:
    """A game's clock at the start of its first turn (stored in the game's public options):
    R4's turn clock, or with ``control`` a game clock (B7) whose durations are kept in it
    (scaled by ``rules.control_scale``), each side's time full."""
    clock = {
        "turn_seconds": rules.turn_seconds,
        "turn_started_at": iso(now),
        "deadline": iso(rules.deadline(now, measured_lag)),
        "away_budget": rules.away_budget_seconds,
        "both_away_since": None,
    }
    if control is None:
        return clock
    sized = control.scaled(rules.control_scale)
    return {
        **clock,
        "control": control.id,
        "increment": sized.increment,
        "period_seconds": sized.period_seconds,
        "left": [sized.base, sized.base],
        "periods_left": [sized.periods, sized.periods],
        "allowance": rules.allowance(measured_lag),
        "free_turn": True,
    }


def time_left(clock: dict[str, Any], now: datetime) -> float:
    """B7: what the side to move has left at ``now`` before its time runs out, the lag
    allowance not counted (0 once spent); with byoyomi, the periods left included."""
    deadline = parse_iso(clock["deadline"])
    return max(0.0, (deadline - now).total_seconds() - float(clock.get("allowance", 0.0)))


def spend(clock: dict[str, Any], mover: int, now: datetime) -> dict[str, Any]:
    """B7: the game clock after side ``mover`` moved at ``now``: what was left before the
    deadline is the mover's time (its first move costs nothing); Fischer adds the increment,
    byoyomi keeps the period the move was made in (a period run out is spent). A credit on the
    deadline only stops the clock (Z1, Z4): the mover never keeps more than the turn began with."""
    clock = resume(clock, now)
    if clock.get("free_turn"):
        return clock
    left = list(clock["left"])
    periods = list(clock["periods_left"])
    step = float(clock["period_seconds"])
    total = min(time_left(clock, now), float(left[mover]) + periods[mover] * step)
    if periods[mover] > 0 and total <= periods[mover] * step:
        left[mover] = 0.0
        periods[mover] = max(1, math.ceil(total / step - 1e-9))
    elif periods[mover] > 0:
        left[mover] = total - periods[mover] * step
    else:
        left[mover] = total + float(clock["increment"])
    return {**clock, "left": left, "periods_left": periods}


def game_turn(
    clock: dict[str, Any],
    rules: ClockRules,
    now: datetime,
    measured_lag: float | None,
    *,
    mover: int,
    ply: int,
) -> dict[str, Any]:
    """B7: after side ``mover`` moved at ``now`` (the game at ``ply`` half-moves), its time
    charged and the other side's turn begun: its deadline where its time left runs out (R4's
    turn time for a first move), plus its lag allowance."""
    spent = spend(clock, mover, now)
    turn = next_turn(spent, rules, now, measured_lag)
    allowance = rules.allowance(measured_lag)
    side = 1 - mover
    if ply < 2:
        seconds = rules.turn_seconds
    else:
        step = float(spent["period_seconds"])
        seconds = float(spent["left"][side]) + spent["periods_left"][side] * step
    return {
        **turn,
        "deadline": iso(now + timedelta(seconds=seconds + allowance)),
        "allowance": allowance,
        "free_turn": ply < 2,
    }


def next_turn(
    clock: dict[str, Any], rules: ClockRules, now: datetime, measured_lag: float | None
) -> dict[str, Any]:
    """The clock after a move at ``now``: a new turn with its own deadline (what concerned
    the news of the turn before is left behind)."""
    turn = {key: value for key, value in clock.items() if key not in ("news_credit", "news_lost")}
    return {
        **turn,
        "turn_started_at": iso(now),
        "deadline": iso(rules.deadline(now, measured_lag)),
    }


def pause(clock: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Both players are away from ``now``: the turn waits."""
    if clock.get("both_away_since"):
        return clock
    return {**clock, "both_away_since": iso(now)}


def resume(clock: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Someone is back: the time spent away comes out of the budget and the deadline moves."""
    since = clock.get("both_away_since")
    if not since:
        return clock
    spent = max(0.0, (now - parse_iso(since)).total_seconds())
    spent = min(spent, float(clock["away_budget"]))
    return {
        **clock,
        "both_away_since": None,
        "away_budget": float(clock["away_budget"]) - spent,
        "deadline": iso(parse_iso(clock["deadline"]) + timedelta(seconds=spent)),
    }


def after_outage(clock: dict[str, Any], since: datetime, now: datetime) -> dict[str, Any] | None:
    """Z4: the clock after no server instance was alive from ``since`` until ``now``.

    The deadline and a both-away wait in progress move by the time down, so it is charged to
    no one. Returns None when this outage (or a later one) is already accounted for: the
    clock remembers it in ``outage_since``, so instances starting together move it once.
    Works on a janggi setup choice too (it has a ``deadline`` and may wait the same way).
    """
    accounted = clock.get("outage_since")
    if accounted and parse_iso(accounted) >= since:
        return None
    down = timedelta(seconds=max(0.0, (now - since).total_seconds()))
    moved = {
        **clock,
        "outage_since": iso(since),
        "deadline": iso(parse_iso(clock["deadline"]) + down),
    }
    if clock.get("both_away_since"):
        moved["both_away_since"] = iso(parse_iso(clock["both_away_since"]) + down)
    return moved


def due(clock: dict[str, Any]) -> tuple[datetime, str]:
    """When the clock next decides something, and what: ``"timeout"`` or ``"interrupted"``."""
    since = clock.get("both_away_since")
    if since:
        return parse_iso(since) + timedelta(seconds=float(clock["away_budget"])), "interrupted"
    return parse_iso(clock["deadline"]), "timeout"


# An outage of the news between instances: from its start until its end (None: going on).
Outage = tuple[datetime, datetime | None]


def overlap_seconds(outages: list[Outage], start: datetime, now: datetime) -> float:
    """How long, between ``start`` and ``now``, at least one of ``outages`` went on (the
    union: outages of two instances at the same time count once)."""
    spans = sorted((max(begin, start), min(end or now, now)) for begin, end in outages)
    total = 0.0
    reach = start
    for begin, end in spans:
        begin = max(begin, reach)
        if end > begin:
            total += (end - begin).total_seconds()
            reach = end
    return total


def news_credit(clock: dict[str, Any], outages: list[Outage], now: datetime) -> float:
    """R4, Z4: the seconds of this turn during which the news between the players'
    instances could not cross, not yet added to its deadline (``news_credit`` counts those
    added this turn). ``outages``: what the instances say of their hubs; the spans the clock
    keeps itself (``news_lost``, an instance that died) count with them, once."""
    started = parse_iso(clock["turn_started_at"])
    lost: list[Outage] = [(parse_iso(a), parse_iso(b)) for a, b in clock.get("news_lost", [])]
    return overlap_seconds([*outages, *lost], started, now) - float(clock.get("news_credit", 0.0))


def news_lost(clock: dict[str, Any], start: datetime, end: datetime) -> dict[str, Any]:
    """The clock keeping the span from ``start`` to ``end`` during which news may not have
    crossed (an instance holding a seat died, R7, Z4): its instance's own outages are
    forgotten with it, this span stays with the turn."""
    return {**clock, "news_lost": [*clock.get("news_lost", []), [iso(start), iso(end)]]}


def credited(clock: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The clock with ``seconds`` more on its deadline, counted as news credit."""
    return {
        **clock,
        "deadline": iso(parse_iso(clock["deadline"]) + timedelta(seconds=seconds)),
        "news_credit": float(clock.get("news_credit", 0.0)) + seconds,
    }
