"""The leaderboard per variant and a player's rating history over HTTP (SPEC B8, B2). A real
app (lifespan, migrations, SQLite); ratings as the rating store writes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from chuhan.server.db.ratings import RatingStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import ratings
from chuhan.server.players.leaderboard import MIN_GAMES
from chuhan.server.records import utcnow
from chuhan.server.rules_config import RatingRules
from test_ratings import finished_game
from test_server_support import server

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[TestClient, Store]]:
    with server(tmp_path) as (client, _, store):
        yield client, store


def visitor(client: TestClient) -> tuple[str, str, dict[str, str]]:
    """A new player, as a browser makes one (a page read first): id, name, cookies."""
    client.cookies.clear()
    me = client.get("/api/me").json()
    return me["id"], me["name"], dict(client.cookies)


def rate(store: Store, player_id: str, variant: str, rating: float, deviation: float, games: int):
    with store.engine.begin() as conn:
        conn.execute(
            ratings.insert().values(
                player_id=player_id,
                variant=variant,
                rating=rating,
                deviation=deviation,
                volatility=0.06,
                games=games,
                updated_at=utcnow(),
            )
        )


def test_the_leaderboard_lists_established_ratings_best_first_B8(
    app: tuple[TestClient, Store],
) -> None:
    client, store = app
    players = {key: visitor(client) for key in "abcdef"}
    rate(store, players["a"][0], "xiangqi", 1901.4, 80, 30)
    rate(store, players["b"][0], "xiangqi", 2100, 150, 40)  # provisional ("?"): not listed
    rate(store, players["c"][0], "xiangqi", 1950, 60, MIN_GAMES - 1)  # too few games
    rate(store, players["d"][0], "xiangqi", 1800, 100, MIN_GAMES)
    rate(store, players["e"][0], "xiangqi", 1800, 90, 20)  # as high as d, on more games
    rate(store, players["b"][0], "janggi", 1700, 70, 25)  # janggi's board only
    client.cookies.clear()
    client.cookies.update(players["d"][2])

    answer = client.get("/api/leaderboard", params={"variant": "xiangqi"})

    assert answer.status_code == 200, answer.text
    board = answer.json()
    assert board["variant"] == "xiangqi"
    assert board["min_games"] == MIN_GAMES
    assert board["players"] == [
        {"rank": 1, "name": players["a"][1], "rating": 1901, "games": 30, "you": False},
        {"rank": 2, "name": players["e"][1], "rating": 1800, "games": 20, "you": False},
        {"rank": 3, "name": players["d"][1], "rating": 1800, "games": MIN_GAMES, "you": True},
    ]
    assert not any(player_id in answer.text for player_id, _, _ in players.values())  # Z2
    janggi = client.get("/api/leaderboard", params={"variant": "janggi"}).json()
    assert [line["name"] for line in janggi["players"]] == [players["b"][1]]
    assert client.get("/api/leaderboard", params={"variant": "chess"}).status_code == 422


def test_the_leaderboard_stops_at_fifty_and_makes_no_identity_B8(
    app: tuple[TestClient, Store],
) -> None:
    client, store = app
    for number in range(52):
        rate(store, visitor(client)[0], "jieqi", 1600 + number, 70, MIN_GAMES)
    client.cookies.clear()
    answer = client.get("/api/leaderboard", params={"variant": "jieqi"})
    shown = answer.json()["players"]
    assert [line["rating"] for line in shown] == list(range(1651, 1601, -1))
    assert [line["rank"] for line in shown] == list(range(1, 51))
    assert "set-cookie" not in answer.headers  # a visitor reads it without becoming a player
    # The walk is by the index (variant, rating): on SQLite the plan names it.
    with store.engine.connect() as conn:
        query = (
            select(ratings.c.player_id)
            .where(ratings.c.variant == "jieqi")
            .order_by(ratings.c.rating.desc())
            .limit(50)
        )
        compiled = query.compile(conn, compile_kwargs={"literal_binds": True})
        plan = " ".join(
            str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}")
        )
    assert "ix_ratings_board" in plan
    assert "TEMP B-TREE" not in plan


def test_the_rating_history_is_the_players_own_counted_games_in_order_B8(
    app: tuple[TestClient, Store],
) -> None:
    client, store = app
    red, _, red_cookies = visitor(client)
    black, _, black_cookies = visitor(client)
    rules = RatingRules(ai_games_first=0, network_days=0)  # Z8's rules aside: rate each game
    rated = RatingStore(store, rules)
    shown: list[dict[str, Any]] = []
    for winner in ("red", "red", "black", "red"):  # the 4th: past the pair's daily 3 (Z8)
        done = rated.rate(finished_game(store, red, black, winner=winner).id)
        assert done is not None
        shown.append(done[0].options["rated"])
    assert shown[3]["counted"] is False

    client.cookies.clear()
    client.cookies.update(red_cookies)
    history = client.get("/api/ratings/history").json()["variants"]

    assert list(history) == ["xiangqi"]
    points = history["xiangqi"]
    assert [(p["before"], p["rating"]) for p in points] == [
        (s["red"]["before"], s["red"]["after"]) for s in shown[:3]
    ]
    assert points[0]["before"] == 1500
    assert points[1]["rating"] > points[0]["rating"]
    assert points[2]["rating"] < points[1]["rating"]  # the loss
    assert points[-1]["rating"] == round(rated.of_player(red)["xiangqi"].rating.rating)
    assert [p["at"] for p in points] == sorted(p["at"] for p in points)
    # The opponent sees their own, the mirror image; a newcomer sees none.
    client.cookies.clear()
    client.cookies.update(black_cookies)
    theirs = client.get("/api/ratings/history").json()["variants"]["xiangqi"]
    assert [p["rating"] for p in theirs] == [s["black"]["after"] for s in shown[:3]]
    visitor(client)
    assert client.get("/api/ratings/history").json() == {"variants": {}}
