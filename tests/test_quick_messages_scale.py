"""Quick messages across two instances on PostgreSQL and Redis (SPEC B8): a word said on a
socket of instance A reaches the other seat's socket on instance B, as its id, once."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_scale_support import cluster, open_room, player_on

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_a_quick_message_crosses_instances_B8(tmp_path: Path) -> None:
    with cluster(tmp_path) as running:
        a, b = running.instances
        creator, friend = player_on(a), player_on(b)
        room = creator.create_room(variant="xiangqi")
        assert friend.join_invite(room["invite"]).status_code == 200
        here, there = open_room(creator, a, room["id"]), open_room(friend, b, room["id"])
        mark = len(there.messages)
        assert here.request("say", phrase="good_luck")["type"] == "ack"
        heard = there.wait_for(lambda m: m.get("type") == "said", start=mark)
        assert heard == {"type": "said", "phrase": "good_luck", "you": False}
        mark, echo = len(here.messages), len(there.messages)
        assert there.request("say", phrase="thanks")["type"] == "ack"
        assert (
            here.wait_for(lambda m: m.get("type") == "said" and not m["you"], start=mark)["phrase"]
            == "thanks"
        )
        assert there.request("ping")["type"] == "pong"
        echoed = [m for m in there.messages[echo:] if m.get("type") == "said"]
        assert echoed == [{"type": "said", "phrase": "thanks", "you": True}]  # once, not twice
        for sock in (here, there):
            sock.close()
