"""The server instances' rows (SPEC Z4, R7): heartbeats, graceful stops, the dead forgotten."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update

from ..records import Instance, aware
from .store import Store
from .tables import server_instances


class InstanceStore:
    """The instances' rows on the server's :class:`~.store.Store` engine."""

    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    def beat(self, instance_id: str, now: datetime, hub: dict[str, Any] | None = None) -> bool:
        """Say ``instance_id`` is alive at ``now`` (and what it says of its hub); its row is
        created if missing.

        Returns False when the row had to be created again (others took it for dead).
        """
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(server_instances)
                .where(server_instances.c.id == instance_id)
                .values(alive_at=now, stopped=False, hub=hub)
            ).rowcount
            if changed == 1:
                return True
            conn.execute(
                server_instances.insert().values(
                    id=instance_id, started_at=now, alive_at=now, stopped=False, hub=hub
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
            Instance(row.id, aware(row.started_at), aware(row.alive_at), bool(row.stopped), row.hub)
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
