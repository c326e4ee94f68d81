"""Which server instances are alive: heartbeats in the database (SPEC Z4, R7).

Every instance keeps one row: when it started and when it last said it was alive (every
``heartbeat`` seconds, and once more when it stops gracefully, then marked ``stopped``).
An instance whose heartbeat is older than ``dead_after`` seconds, or that stopped, is dead:
the room seats its connections held are no longer connected (R7 presence). When no instance
was alive for a while (a single server restarted, or every instance of a cluster), the room
clocks were kept by no one: that time is charged to no one (Z4), see :func:`outage_since`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Boolean, Column, DateTime, String, Table, delete, select, update

from ..storage import Store
from ..tables import metadata

server_instances = Table(
    "server_instances",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("alive_at", DateTime(timezone=True), nullable=False),
    Column("stopped", Boolean, nullable=False, default=False),
)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Instance:
    id: str
    started_at: datetime
    alive_at: datetime
    stopped: bool

    def is_dead(self, now: datetime, dead_after: float) -> bool:
        """True once it stopped, or its last heartbeat is ``dead_after`` seconds old."""
        return self.stopped or (now - self.alive_at).total_seconds() >= dead_after


def outage_since(live: list[Instance], dead: list[Instance]) -> datetime | None:
    """The start of the time no instance was alive (nobody kept the clocks), or None.

    It begins at the last heartbeat of the dead instances and lasts until an instance
    starts again; there was none when an instance still alive had started before it (that
    instance kept the clocks all along). ``live`` are the other instances seen alive now.
    """
    if not dead:
        return None
    since = max(instance.alive_at for instance in dead)
    if any(instance.started_at <= since for instance in live):
        return None
    return since


class InstanceStore:
    """The instances' rows on the server's :class:`~..storage.Store` engine."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    def beat(self, instance_id: str, now: datetime) -> bool:
        """Say ``instance_id`` is alive at ``now``; its row is created if missing.

        Returns False when the row had to be created again (others took it for dead).
        """
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(server_instances)
                .where(server_instances.c.id == instance_id)
                .values(alive_at=now, stopped=False)
            ).rowcount
            if changed == 1:
                return True
            conn.execute(
                server_instances.insert().values(
                    id=instance_id, started_at=now, alive_at=now, stopped=False
                )
            )
        return False

    def stop(self, instance_id: str, now: datetime) -> None:
        """A graceful stop: the last moment alive, and no waiting for the heartbeat to age."""
        with self.engine.begin() as conn:
            conn.execute(
                update(server_instances)
                .where(server_instances.c.id == instance_id)
                .values(alive_at=now, stopped=True)
            )

    def all(self) -> list[Instance]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(server_instances)).all()
        return [
            Instance(row.id, _aware(row.started_at), _aware(row.alive_at), bool(row.stopped))
            for row in rows
        ]

    def forget(self, instance: Instance) -> bool:
        """Delete a dead instance's row once its seats are cleared; False if it was already
        gone or it came back to life meanwhile (its heartbeat moved)."""
        with self.engine.begin() as conn:
            deleted = conn.execute(
                delete(server_instances).where(
                    server_instances.c.id == instance.id,
                    server_instances.c.alive_at == instance.alive_at,
                )
            ).rowcount
        return bool(deleted == 1)
