"""The limits layer: one design for every "so many per so long" rule (SPEC Z3, Z5).

A :class:`Budget` is ``limit`` uses per ``window_seconds``, spent and regained evenly: a
bucket with room for ``limit`` uses that gains one back every ``window_seconds / limit``
seconds (the generic cell rate algorithm: each key keeps one number, its *theoretical
arrival time*). So a budget spent by a burst is not locked for the whole window: the next use
is possible one interval later, and a steady user at the budget's rate is never refused.

Buckets live in the database (table ``limit_buckets``, one row per key), so every server
instance counts the same uses; one transaction per reservation, rows locked in key order.

:meth:`Limiter.reserve` takes one use from several buckets at once, all or none:

- a *refusing* bucket (a player's own budget) over its limit refuses the use, saying when
  the next one is possible;
- a *slowing* bucket (an address block's) over its limit makes the use wait for its turn,
  up to ``max_wait_seconds`` (longer: refused, with when to retry). A bucket shared by
  strangers thus slows everyone in it down instead of shutting them out;
- a *gauge* (the whole site's) never refuses nor slows: full, it is not charged, and the
  use draws instead on the ``when_full`` buckets given with it (tighter budgets of the
  user's own). A budget that strangers anywhere can spend then shuts nobody out: it only
  makes each user's own budget the tighter one (issue 27).

:meth:`Limiter.refund` gives a reserved use back (a password that was right costs nothing).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine

from .db.tables import limit_buckets
from .games import GameActionError


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
    own), and what :meth:`Limiter.refund` gives back."""

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


class Limiter:
    """Budgets counted in one database for every instance (synchronous: run it off the
    event loop, as the rest of the storage)."""

    def __init__(self, engine: Engine, max_wait_seconds: float = 10.0) -> None:
        self.engine = engine
        self.max_wait_seconds = max_wait_seconds

    def _insert(self) -> object:
        dialect = sqlite_insert if self.engine.dialect.name == "sqlite" else pg_insert
        return dialect(limit_buckets)

    def reserve(
        self,
        uses: Sequence[tuple[str, Budget]],
        now: float | None = None,
        when_full: Sequence[tuple[str, Budget]] = (),
    ) -> Reservation:
        """Take one use from each ``(key, budget)``, or none; when a gauge among them is
        full, from each of ``when_full`` instead of it. Raises LimitExceeded."""
        now = time.time() if now is None else now
        keys = sorted({key for key, _ in (*uses, *when_full)})
        with self.engine.begin() as conn:
            missing = self._insert().values([{"key": k, "tat": 0.0} for k in keys])  # type: ignore[attr-defined]
            conn.execute(missing.on_conflict_do_nothing(index_elements=["key"]))
            query = select(limit_buckets.c.key, limit_buckets.c.tat).where(
                limit_buckets.c.key.in_(keys)
            )
            if self.engine.dialect.name != "sqlite":  # SQLite: the insert holds the lock
                query = query.with_for_update()
            # A bucket the retention job deleted meanwhile had regained every use: unused.
            tat = dict.fromkeys(keys, 0.0)
            tat.update({row[0]: float(row[1]) for row in conn.execute(query.order_by("key"))})

            def early(key: str, budget: Budget) -> float:
                """> 0: the bucket is full for that long (the use's turn is that late)."""
                return max(tat[key], now) - budget.tolerance - now

            full = {key for key, budget in uses if budget.gauge and early(key, budget) > 0}
            uses = [use for use in uses if use[0] not in full] + (list(when_full) if full else [])
            wait, refused_for, left = 0.0, 0.0, None
            for key, budget in uses:
                late = early(key, budget)
                if late > 0 and not budget.slows:
                    refused_for = max(refused_for, late)
                wait = max(wait, late) if budget.slows else wait
                if not budget.gauge:  # the site's room is nobody's own number of tries
                    room = int((now + budget.tolerance - max(tat[key], now)) // budget.interval)
                    left = room if left is None else min(left, room)
            if refused_for > 0:
                raise LimitExceeded(refused_for)
            if wait > self.max_wait_seconds:
                raise LimitExceeded(wait)
            charged = []
            for key, budget in uses:
                tat[key] = max(tat[key], now) + budget.interval
                charged.append((key, budget.interval))
                conn.execute(
                    update(limit_buckets).where(limit_buckets.c.key == key).values(tat=tat[key])
                )
        return Reservation(max(0.0, wait), max(0, left if left is not None else 0), tuple(charged))

    def refund(self, reservation: Reservation) -> None:
        """Give the reserved uses back."""
        with self.engine.begin() as conn:
            for key, interval in reservation.charged:
                conn.execute(
                    update(limit_buckets)
                    .where(limit_buckets.c.key == key)
                    .values(tat=limit_buckets.c.tat - interval)
                )

    def left(self, key: str, budget: Budget, now: float | None = None) -> int:
        """How many uses ``key`` has now."""
        now = time.time() if now is None else now
        with self.engine.connect() as conn:
            row = conn.execute(
                select(limit_buckets.c.tat).where(limit_buckets.c.key == key)
            ).first()
        start = max(float(row[0]) if row else 0.0, now)
        return max(0, int((now + budget.tolerance - start) // budget.interval) + 1)
