"""The game lengths a room or a seek may choose (SPEC B7, R4): pure data, no clock.

R4's 90 seconds per move stays the default (``turn``): a room created without a choice keeps
no time control in its options and plays exactly as R4 says. Beside it, game clocks: a
*base* of minutes per side plus an *increment* of seconds after each move (``5+3``), and in
janggi *byoyomi*: a base, then a number of periods of a few seconds each; a move made within a
period keeps it, a period that runs out is spent, the last one flags (``5m+3x30s``).

A time control's id is what a client sends, what a room keeps in its options and what a
seek's pool is named by (B1: pools per variant, rule option and clock).
"""

from __future__ import annotations

from dataclasses import dataclass

VARIANTS = ("xiangqi", "janggi", "jieqi")
TURN = "turn"  # R4: each move within the turn time, the default


@dataclass(frozen=True)
class TimeControl:
    """A game clock: ``base`` seconds per side, ``increment`` seconds added after each move
    (Fischer), and ``periods`` byoyomi periods of ``period_seconds`` once the base is spent."""

    id: str
    base: float
    increment: float = 0.0
    periods: int = 0
    period_seconds: float = 0.0
    variants: tuple[str, ...] = VARIANTS

    @property
    def byoyomi(self) -> bool:
        return self.periods > 0

    def scaled(self, factor: float) -> TimeControl:
        """The same control with every duration times ``factor`` (a test server's short
        clocks; 1 everywhere else)."""
        return TimeControl(
            self.id,
            self.base * factor,
            self.increment * factor,
            self.periods,
            self.period_seconds * factor,
            self.variants,
        )


# B7: at least 3+2, 5+3, 10+5, 15+10 (pychess' xiangqi weeklies are 5+3), and janggi byoyomi.
CONTROLS: dict[str, TimeControl] = {
    control.id: control
    for control in (
        TimeControl("3+2", 3 * 60, 2),
        TimeControl("5+3", 5 * 60, 3),
        TimeControl("10+5", 10 * 60, 5),
        TimeControl("15+10", 15 * 60, 10),
        TimeControl("5m+3x30s", 5 * 60, periods=3, period_seconds=30, variants=("janggi",)),
        TimeControl("10m+5x30s", 10 * 60, periods=5, period_seconds=30, variants=("janggi",)),
    )
}


class TimeControlError(ValueError):
    """A time control refused (Z5); the message says what may be chosen instead. The room's
    form answers it as ``bad_request``, the seek as ``bad_seek``."""


def offered(variant: str) -> list[str]:
    """The ids a player of ``variant`` may choose, the default (``turn``) first."""
    return [TURN, *(c.id for c in CONTROLS.values() if variant in c.variants)]


def choose(variant: str, value: object) -> str | None:
    """The time control a client asked for in ``variant``, checked (Z5): None for R4's turn
    clock (also when nothing was asked), else the control's id. Raises TimeControlError
    for an unknown id or one the variant does not offer."""
    if value is None or value == TURN:
        return None
    control = CONTROLS.get(value) if isinstance(value, str) else None
    if control is None or variant not in control.variants:
        allowed = ", ".join(offered(variant)) if variant in VARIANTS else TURN
        raise TimeControlError(f"clock must be one of {allowed} in {variant}")
    return control.id
