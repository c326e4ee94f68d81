"""The limiter's buckets in the database (the budgets and how they count:
``server/budget.py``): one row per key, its theoretical arrival time, for every instance.
Its own transactions do not wait for the disk (:func:`~.engine.lazy_begin`): a power cut
may forget the last moment's uses (a moment's more tries), and every rate-limited write
would otherwise pay one more fsync under SQLite's write lock before its own."""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine

from ..budget import Budget, LimitExceeded, Reservation
from ..rules_config import MAX_WAIT_SECONDS
from .engine import lazy_begin
from .tables import limit_buckets

# The reservation's statements, built once: SQLAlchemy then skips building each one and its
# cache key on every use (most of a statement's cost here), and runs each of the insert and
# the update once for all the keys (executemany).
_MISSING = {
    "sqlite": sqlite_insert(limit_buckets).on_conflict_do_nothing(index_elements=["key"]),
    "postgresql": pg_insert(limit_buckets).on_conflict_do_nothing(index_elements=["key"]),
}
_READ = (
    select(limit_buckets.c.key, limit_buckets.c.tat)
    .where(limit_buckets.c.key.in_(bindparam("keys", expanding=True)))
    .order_by(limit_buckets.c.key)
)
_CHARGE = (
    update(limit_buckets)
    .where(limit_buckets.c.key == bindparam("bucket"))
    .values(tat=bindparam("until"))
)


class Limiter:
    """Budgets counted in one database for every instance (synchronous: run it off the
    event loop, as the rest of the storage)."""

    def __init__(self, engine: Engine, max_wait_seconds: float = MAX_WAIT_SECONDS) -> None:
        self.engine = engine
        self.max_wait_seconds = max_wait_seconds
        sqlite = engine.dialect.name == "sqlite"
        self._missing = _MISSING["sqlite" if sqlite else "postgresql"]
        self._read = _READ if sqlite else _READ.with_for_update()  # SQLite: the insert locks

    def reserve(
        self,
        uses: Sequence[tuple[str, Budget]],
        now: float | None = None,
        when_full: Sequence[tuple[str, Budget]] = (),
    ) -> Reservation:
        """Take one use from each ``(key, budget)``, or none; when a gauge among them is
        full, from each of ``when_full`` instead of it. Raises LimitExceeded."""
        with lazy_begin(self.engine) as conn:
            return self.reserve_in(conn, uses, now, when_full)

    def reserve_in(
        self,
        conn: Connection,
        uses: Sequence[tuple[str, Budget]],
        now: float | None = None,
        when_full: Sequence[tuple[str, Budget]] = (),
    ) -> Reservation:
        """:meth:`reserve` inside the caller's transaction on ``conn`` (its other writes and
        the uses commit together, one commit; LimitExceeded: the caller rolls back)."""
        now = time.time() if now is None else now
        keys = sorted({key for key, _ in (*uses, *when_full)})
        conn.execute(self._missing, [{"key": k, "tat": 0.0} for k in keys])
        # A bucket the retention job deleted meanwhile had regained every use: unused.
        tat = dict.fromkeys(keys, 0.0)
        tat.update({row[0]: float(row[1]) for row in conn.execute(self._read, {"keys": keys})})

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
        if charged:
            conn.execute(_CHARGE, [{"bucket": key, "until": tat[key]} for key, _ in charged])
        return Reservation(max(0.0, wait), max(0, left if left is not None else 0), tuple(charged))

    def refund(self, reservation: Reservation) -> None:
        """Give the reserved uses back."""
        with lazy_begin(self.engine) as conn:
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
