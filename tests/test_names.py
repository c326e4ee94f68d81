"""Every player has a readable name, and the games name both players (SPEC B7, S1, B3).

A new player is "Orca 4821" until they choose (never "a player without a name"); clearing a
chosen name gives the default back. My games, the review and the downloaded records name
both players: ``[Red]``/``[Black]`` always (``?`` where nobody is known), the ratings before
a rated game as ``[RedElo]``/``[BlackElo]``, and what kind of game it was as ``[Event]``; the
review says which side the player had.
"""

from __future__ import annotations

import re

import pytest

from chuhan.rules.record import read_records
from chuhan.server.names import DEFAULT_ANIMALS, default_name, display_name
from test_archive import CANNON_MATE, _as, _identity, _online, _play_local
from test_server_support import server

pytestmark = pytest.mark.timeout(120)


def test_a_new_player_has_a_readable_default_name_until_they_choose_b7(tmp_path):
    with server(tmp_path) as (client, _, _):
        me = client.get("/api/me").json()
        assert re.fullmatch(r"[A-Z][a-z]+ [1-9]\d{3}", me["name"])
        assert not me["name_chosen"]
        assert me["name"] == default_name(me["id"])  # the same wherever it is shown
        assert me["name"].split()[0] in DEFAULT_ANIMALS
        assert display_name(me["name"]) == me["name"]  # it keeps the names' rules
        chosen = client.patch("/api/me", json={"name": "Ana"}).json()
        assert chosen["name"] == "Ana"
        assert chosen["name_chosen"] is True
        cleared = client.patch("/api/me", json={"name": None}).json()
        assert cleared["name"] == me["name"]
        assert cleared["name_chosen"] is False
        kept = client.patch("/api/me", json={"name": me["name"]}).json()
        assert kept["name"] == me["name"]
        assert kept["name_chosen"] is True  # asked no more


def test_default_names_differ_between_players_b7():
    names = {default_name(f"p_{i}") for i in range(200)}
    assert len(names) >= 195
    assert len({name.split()[0] for name in names}) == len(DEFAULT_ANIMALS)


def test_my_games_the_review_and_the_download_name_both_players_b7(tmp_path):
    with server(tmp_path) as (client, _, store):
        stranger, _ = _identity(client)  # never chose a name
        me, mine = _identity(client)
        client.patch("/api/me", json={"name": "Ana"})
        game_id = _online(store, me, stranger, paired=True)
        _play_local(client, CANNON_MATE)

        listed = client.get("/api/archive").json()["games"]
        paired = next(game for game in listed if game["kind"] == "paired")
        assert paired["opponent"] == {"type": "player", "name": default_name(stranger)}

        review = client.get(f"/api/archive/games/{game_id}").json()
        assert review["you"] == "red"
        assert review["players"] == {"red": "Ana", "black": default_name(stranger)}

        text = client.get("/api/archive/records").text
        records = read_records(text)
        online, local = records[1], records[0]  # newest first: the local game was later
        assert online.tags["Red"] == "Ana"
        assert online.tags["Black"] == default_name(stranger)
        assert online.tags["RedElo"] == "1500"
        assert online.tags["BlackElo"] == "1500"
        assert online.tags["Event"] == "Chu-Han, rated game"
        assert local.tags["Red"] == "?"
        assert local.tags["Black"] == "?"  # two at one device
        assert "RedElo" not in local.tags
        assert local.tags["Event"] == "Chu-Han, on one device"

        _as(client, mine)
        single = client.get(f"/api/games/{game_id}/record").text
        assert '[Red "Ana"]' in single
        assert '[RedElo "1500"]' in single
