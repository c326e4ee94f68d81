"""One player on two devices across two instances on PostgreSQL and Redis (SPEC B6).

The link made through instance A signs in a browser that only talks to instance B; B's
recovery code restores the player through A; A signs B's device out and B's next request,
to B, names nobody.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chuhan.server.games.service import hash_token
from test_scale_support import cluster, player_on

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_a_device_link_and_a_recovery_code_work_across_instances_b6(tmp_path: Path) -> None:
    with cluster(tmp_path) as running:
        a, b = running.instances
        phone = player_on(a)
        me = phone.me()
        link = phone.http.post("/api/devices/link").json()
        assert link["url"].startswith(a.url)
        code = link["url"].partition("#")[2]
        laptop = player_on(b)
        signed = laptop.http.post("/api/devices/sign-in", json={"link": code})
        assert signed.status_code == 200
        assert signed.json()["id"] == me["id"]
        assert laptop.me()["id"] == me["id"]
        again = player_on(b).http.post("/api/devices/sign-in", json={"link": code})
        assert again.status_code == 404  # used on B, refused on B again (and anywhere)

        recovery = laptop.http.post("/api/devices/recovery").json()["code"]
        found = running.sql("SELECT hash FROM player_secrets WHERE kind = 'recovery'")
        assert [row[0] for row in found] == [hash_token(recovery)]  # only its hash is kept
        lost = player_on(a)
        restored = lost.http.post("/api/devices/sign-in", json={"recovery": recovery})
        assert restored.status_code == 200
        assert lost.me()["id"] == me["id"]

        listed = phone.http.get("/api/devices").json()["devices"]
        assert len(listed) == 3
        laptop_device = laptop.http.get("/api/devices").json()["devices"]
        mine = next(device["id"] for device in laptop_device if device["current"])
        assert phone.http.delete(f"/api/devices/{mine}").status_code == 200
        assert laptop.http.get("/api/devices").status_code == 401  # on B: nobody now
        assert laptop.me()["id"] != me["id"]
