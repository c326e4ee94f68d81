"""One design for every "so many per so long" rule (SPEC Z3, Z5): a core module, the
vocabulary of the limits that storage (``db/limits.py``) and every package that limits use.

A :class:`Budget` is ``limit`` uses per ``window_seconds``, spent and regained evenly: a
bucket with room for ``limit`` uses that gains one back every ``window_seconds / limit``
seconds (the generic cell rate algorithm: each key keeps one number, its *theoretical
arrival time*). So a budget spent by a burst is not locked for the whole window: the next use
is possible one interval later, and a steady user at the budget's rate is never refused.

Buckets live in the database (table ``limit_buckets``, one row per key), so every server
instance counts the same uses; one transaction per reservation, rows locked in key order.

:meth:`~.db.limits.Limiter.reserve` takes one use from several buckets at once, all or none:

- a *refusing* bucket (a player's own budget) over its limit refuses the use, saying when
  the next one is possible;
- a *slowing* bucket (an address block's) over its limit makes the use wait for its turn,
  up to ``max_wait_seconds`` (longer: refused, with when to retry). A bucket shared by
  strangers thus slows everyone in it down instead of shutting them out;
- a *gauge* (the whole site's) never refuses nor slows: full, it is not charged, and the
  use draws instead on the ``when_full`` buckets given with it (tighter budgets of the
  user's own). A budget that strangers anywhere can spend then shuts nobody out: it only
  makes each user's own budget the tighter one.

:meth:`~.db.limits.Limiter.refund` gives a reserved use back (a right password costs nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from .refusal import GameActionError


@dataclass(frozen=True)
class Budget:
    """``limit`` uses per ``window_seconds``; ``slows``: over it, a use waits its turn;
    ``gauge``: over it, a use is not counted in it and draws on others (module docstring)."""

    limit: int
    window_seconds: float
    slows: bool = False
    gauge: bool = False

    @property
    def interval(self) -> float:
        return self.window_seconds / max(1, self.limit)

    @property
    def tolerance(self) -> float:
        return self.window_seconds - self.interval


@dataclass(frozen=True)
class Reservation:
    """A use taken: ``wait`` seconds before it may go on (slowing buckets), ``left`` uses
    remaining before the tightest bucket refuses or slows (gauges aside: theirs are nobody's
    own), and what :meth:`~.db.limits.Limiter.refund` gives back."""

    wait: float
    left: int
    charged: tuple[tuple[str, float], ...]


class LimitExceeded(Exception):
    """No use is possible now; ``retry_after`` seconds until one is."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"limit reached; retry in {retry_after:.0f} s")
        self.retry_after = retry_after


class TooManyError(GameActionError):
    """A use refused by a limit: HTTP 429 with ``retry_after`` (whole seconds, at least 1)
    and a machine ``code`` the front end translates (SPEC Z5)."""

    def __init__(self, code: str, message: str, retry_after: float) -> None:
        super().__init__(code, message, retry_after=max(1, round(retry_after)))
