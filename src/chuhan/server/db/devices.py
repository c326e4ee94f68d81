"""A player's devices and the secrets that add one (SPEC B6; what they are:
``server/players/devices.py``). Only hashes are stored: a cookie token's, a code's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, select, update

from ..records import aware, utcnow
from .store import Store
from .tables import player_devices, player_secrets

LINK = "link"
RECOVERY = "recovery"


@dataclass(frozen=True)
class Device:
    """One browser a player is signed in on."""

    id: str
    label: str
    created_at: datetime
    token_hash: str


class DeviceStore:
    """The devices' and codes' rows (synchronous, like :class:`~.db.store.Store`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def devices(self, player_id: str) -> list[Device]:
        """The player's devices, the first signed in first."""
        query = (
            select(player_devices)
            .where(player_devices.c.player_id == player_id)
            .order_by(player_devices.c.created_at, player_devices.c.id)
        )
        with self.store.reader.connect() as conn:
            return [
                Device(row.id, row.label, aware(row.created_at), row.token_hash)
                for row in conn.execute(query)
            ]

    def add_device(
        self, device_id: str, player_id: str, token_hash: str, label: str, replaces: str | None
    ) -> None:
        """Sign a browser in as the player with a new cookie; ``replaces``: the hash of the
        cookie it had, whose device (another player's, or a stale one) is signed out."""
        with self.store.engine.begin() as conn:
            if replaces is not None:
                conn.execute(delete(player_devices).where(player_devices.c.token_hash == replaces))
            conn.execute(
                player_devices.insert().values(
                    id=device_id,
                    player_id=player_id,
                    token_hash=token_hash,
                    label=label[:80],
                    created_at=utcnow(),
                )
            )

    def label_device(self, device_id: str, label: str) -> None:
        """Name a device that had no label (a player's first: made before any was read)."""
        with self.store.engine.begin() as conn:
            conn.execute(
                update(player_devices)
                .where(player_devices.c.id == device_id, player_devices.c.label == "")
                .values(label=label[:80])
            )

    def remove_device(self, player_id: str, device_id: str) -> bool:
        """Sign one of the player's devices out; False when they have no such device."""
        with self.store.engine.begin() as conn:
            gone = conn.execute(
                delete(player_devices).where(
                    player_devices.c.id == device_id, player_devices.c.player_id == player_id
                )
            )
        return bool(gone.rowcount)

    def add_link(self, player_id: str, code_hash: str, expires_at: datetime) -> None:
        """Keep a device link's code (its hash) until ``expires_at``; expired links of every
        player go at the same time."""
        now = utcnow()
        with self.store.engine.begin() as conn:
            conn.execute(
                delete(player_secrets).where(
                    player_secrets.c.kind == LINK, player_secrets.c.expires_at < now
                )
            )
            conn.execute(
                player_secrets.insert().values(
                    hash=code_hash,
                    player_id=player_id,
                    kind=LINK,
                    expires_at=expires_at,
                    created_at=now,
                )
            )

    def take_link(self, code_hash: str) -> str | None:
        """The player of a device link that is unused and unexpired, used up by this call
        (single use even when two browsers redeem it at once: one delete wins); else None."""
        with self.store.engine.begin() as conn:
            row = conn.execute(
                select(player_secrets.c.player_id, player_secrets.c.expires_at).where(
                    player_secrets.c.hash == code_hash, player_secrets.c.kind == LINK
                )
            ).one_or_none()
            if row is None:
                return None
            taken = conn.execute(
                delete(player_secrets).where(
                    player_secrets.c.hash == code_hash, player_secrets.c.kind == LINK
                )
            )
        if not taken.rowcount or aware(row.expires_at) <= utcnow():
            return None
        return str(row.player_id)

    def set_recovery(self, player_id: str, code_hash: str) -> None:
        """The player's one recovery code from now on: the one before is revoked."""
        with self.store.engine.begin() as conn:
            conn.execute(
                delete(player_secrets).where(
                    player_secrets.c.player_id == player_id, player_secrets.c.kind == RECOVERY
                )
            )
            conn.execute(
                player_secrets.insert().values(
                    hash=code_hash,
                    player_id=player_id,
                    kind=RECOVERY,
                    expires_at=None,
                    created_at=utcnow(),
                )
            )

    def recovery_player(self, code_hash: str) -> str | None:
        """The player whose recovery code has this hash, or None."""
        found = self._recovery(player_secrets.c.player_id, player_secrets.c.hash == code_hash)
        return None if found is None else str(found)

    def recovery_issued(self, player_id: str) -> datetime | None:
        """When the player's recovery code was issued, None when they have none."""
        found = self._recovery(player_secrets.c.created_at, player_secrets.c.player_id == player_id)
        return None if found is None else aware(found)

    def _recovery(self, column: ColumnElement[Any], where: ColumnElement[bool]) -> Any:
        """``column`` of the recovery code ``where`` holds (one at most), or None."""
        query = select(column).where(where, player_secrets.c.kind == RECOVERY)
        with self.store.reader.connect() as conn:
            return conn.execute(query).scalar_one_or_none()
