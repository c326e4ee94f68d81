"""A rating cannot be bought (SPEC Z8, B2), tried as a rating farm tries it: a booster
and fresh cookies that lose to it on purpose, over a real server's seek and room sockets.

Before the rules of ``server/rating_rules.py`` the booster went from 1500 to 2278 in 78
games. Now identities of one address are never rated together, and from as many addresses
as the farm likes the booster's gain in an hour stops at ``gain_per_hour`` and its rated
games against new identities at ``new_opponents_per_day``. The server believes the test's
``X-Forwarded-For`` (a trusted proxy, as behind nginx), so each cookie has its own address.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chuhan.server.rules_config import RatingRules
from farm_client import Identity, lose_on_purpose
from rooms_client import running_server

pytestmark = pytest.mark.timeout(240)
RULES = RatingRules()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(
        tmp_path_factory.mktemp("rating-farm"),
        CHUHAN_TRUSTED_PROXIES="127.0.0.1",
        # Each cookie is practised (the AI-games rule: tests/test_ratings.py), so that the
        # limits on what practised identities can give are what is tried here.
        CHUHAN_RATED_AFTER_AI_GAMES="0",
    ) as url:
        yield url


@pytest.fixture(scope="module")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The rules as deployed: a fresh identity must finish games against the AI first."""
    with running_server(
        tmp_path_factory.mktemp("rating-farm-default"), CHUHAN_TRUSTED_PROXIES="127.0.0.1"
    ) as url:
        yield url


def test_fresh_cookies_are_not_rated_before_they_played_the_ai_Z8(default_server: str) -> None:
    booster = Identity(default_server, "198.51.100.1")
    cookie = Identity(default_server, "192.0.2.1")  # another address: only the newness counts

    event = lose_on_purpose(booster, cookie)

    assert event["counted"] is False, event
    assert event["reason"] == "new_player", event
    assert event["ai_games_first"] == RULES.ai_games_first
    assert booster.rating()["games"] == 0
    assert cookie.rating()["games"] == 0


def test_cookies_from_the_boosters_address_are_never_rated_with_it_Z8(server: str) -> None:
    booster = Identity(server, "203.0.113.7")
    farm = [Identity(server, "203.0.113.7") for _ in range(4)]
    # Another address of the same IPv6 /48 is the same block too (a /64 each, one holder).
    neighbours = [Identity(server, f"2001:db8:40:{n}::1") for n in range(1, 3)]
    v6_booster = Identity(server, "2001:db8:40:ff::1")

    rated = [lose_on_purpose(booster, cookie) for cookie in farm]
    rated += [lose_on_purpose(v6_booster, cookie) for cookie in neighbours]

    for event in rated:
        assert event["counted"] is False, event
        assert event["reason"] == "same_network", event
        assert event[event["booster"]]["delta"] == 0
    for player in (booster, v6_booster, *farm, *neighbours):
        assert player.rating() == {
            "rating": 1500,
            "deviation": 350,
            "provisional": True,
            "games": 0,
        }
    # Nothing the clients received names an address, nor a hash of one.
    assert all("203.0.113" not in str(event) and "2001:db8" not in str(event) for event in rated)


def test_a_farm_of_fresh_cookies_on_many_addresses_lifts_the_booster_only_so_far_Z8(
    server: str,
) -> None:
    booster = Identity(server, "198.51.100.1")
    games = RULES.new_opponents_per_day + 2
    rated = [
        lose_on_purpose(booster, Identity(server, f"192.0.2.{number}"))
        for number in range(1, games + 1)
    ]

    counted = [event for event in rated if event["counted"]]
    assert len(counted) == RULES.new_opponents_per_day
    assert [event["reason"] for event in rated[len(counted) :]] == ["new_opponent_limit"] * 2
    gained = sum(event[event["booster"]]["delta"] for event in counted)
    assert 0 < gained <= RULES.gain_per_hour + 1  # each delta is rounded
    assert any(event[event["booster"]].get("capped") for event in counted)
    mine = booster.rating()
    assert mine["rating"] <= 1500 + RULES.gain_per_hour
    assert mine["deviation"] <= 350
    # Each cookie lost its full share: what it gave was never worth more than it lost.
    for event in counted:
        cookie_side = "black" if event["booster"] == "red" else "red"
        assert event[cookie_side]["delta"] < 0
