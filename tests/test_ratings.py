"""Ratings (SPEC B2, issue 28): Glicko-2 per variant from paired games, once per game, with
the limits against manipulation. The storage tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
import threading
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from chuhan.server.db.ratings import RatingStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import rating_changes
from chuhan.server.players import glicko2
from chuhan.server.players.ratings import (
    MIN_PLIES,
    PROVISIONAL_OPPONENT_FACTOR,
    RATED_GAMES_PER_PAIR_PER_DAY,
    rated,
)
from chuhan.server.records import GameRecord, utcnow

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
OPENING = ["h3e3", "h10g8", "b1c3", "b10c8"]
_ids = itertools.count(1)


def test_glicko2_reproduces_glickmans_worked_example_B2() -> None:
    """ "Example of the Glicko-2 system" (Glickman): 1500/200/0.06 against 1400/30 (won),
    1550/100 and 1700/300 (lost) → 1464.06 / 151.52 / 0.05999."""
    player = glicko2.Rating(1500, 200, 0.06)
    results = [
        glicko2.Result(glicko2.Rating(1400, 30), 1),
        glicko2.Result(glicko2.Rating(1550, 100), 0),
        glicko2.Result(glicko2.Rating(1700, 300), 0),
    ]
    after = glicko2.update(player, results)
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation_B2() -> None:
    after = glicko2.update(glicko2.Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.deviation == pytest.approx(200.27, abs=0.01)  # the paper's step 6


def test_an_established_rating_moves_half_as_far_against_a_new_identity_B2() -> None:
    established = glicko2.Rating(1600, 60, 0.06)
    newcomer = glicko2.Rating()  # 1500 ± 350: provisional
    plain = glicko2.update(established, [glicko2.Result(newcomer, 0)])
    after = rated(established, newcomer, 0)
    assert after.rating - established.rating == pytest.approx(
        (plain.rating - established.rating) * PROVISIONAL_OPPONENT_FACTOR
    )
    assert after.rating > plain.rating  # a loss to a fresh cookie costs less
    # The newcomer takes the full Glicko-2 change.
    assert rated(newcomer, established, 1) == glicko2.update(
        newcomer, [glicko2.Result(established, 1)]
    )


# ---------------------------------------------------------------------- storage


@pytest.fixture
def store(database: tuple[str, str | None]) -> Any:
    url, schema = database
    store = Store(url, schema)
    store.migrate()
    yield store
    store.dispose()


def new_players(store: Store, count: int = 2) -> list[str]:
    ids = [f"p_{next(_ids)}" for _ in range(count)]
    for player_id in ids:
        store.create_player(player_id, f"hash-{player_id}")
    return ids


def finished_game(
    store: Store,
    red: str,
    black: str,
    winner: str | None = "red",
    reason: str = "resignation",
    moves: list[str] | None = None,
    paired: bool = True,
    variant: str = "xiangqi",
) -> GameRecord:
    """A finished online game between ``red`` and ``black``, stored as the room stores one."""
    now = utcnow()
    options: dict[str, Any] = {"rules": "casual", "paired": True} if paired else {}
    game = GameRecord(
        id=f"g_{next(_ids)}",
        kind="online",
        variant=variant,
        options=options,
        start_fen=START,
        moves=list(OPENING if moves is None else moves),
        status="finished",
        result={"winner": winner, "reason": reason, "points": None},
        created_at=now,
        expires_at=now + timedelta(hours=1),
        seq=2,
    )
    events = [{"type": "start"}, {"type": "end", "result": game.result, "points_awarded": 0}]
    store.insert_game(game, events, [(red, 0), (black, 1)])
    return game


@pytest.mark.parametrize("reason", ["resignation", "timeout", "checkmate"])
def test_a_paired_game_rates_both_players_as_glicko2_says_B2(store: Store, reason: str) -> None:
    red, black = new_players(store)
    game = finished_game(store, red, black, winner="red", reason=reason)
    ratings = RatingStore(store)

    done = ratings.rate(game.id)

    assert done is not None
    after, event = done
    winner = glicko2.update(glicko2.Rating(), [glicko2.Result(glicko2.Rating(), 1)])
    loser = glicko2.update(glicko2.Rating(), [glicko2.Result(glicko2.Rating(), 0)])
    mine = ratings.of_player(red)
    assert mine["xiangqi"].rating.rating == pytest.approx(winner.rating)
    assert mine["xiangqi"].rating.deviation == pytest.approx(winner.deviation)
    assert mine["xiangqi"].games == 1 and mine["xiangqi"].provisional
    assert ratings.of_player(black)["xiangqi"].rating.rating == pytest.approx(loser.rating)
    # Other variants are untouched: one rating per variant.
    assert ratings.of_player(red)["janggi"].games == 0
    # What the end of the game shows: each side's rating before and after, and the change.
    shown = after.options["rated"]
    assert shown["red"] == {
        "before": 1500,
        "after": round(winner.rating),
        "delta": round(winner.rating) - 1500,
        "provisional": True,
    }
    assert shown["black"]["delta"] == round(loser.rating) - 1500 < 0
    assert event == {"type": "rated", "rated": shown}
    stored = store.game(game.id)
    assert stored is not None and stored.seq == game.seq + 1 and stored.options["rated"] == shown
    assert [e.type for e in store.events_after(game.id, game.seq)] == ["rated"]


def test_a_draw_moves_a_newcomer_toward_a_stronger_opponent_B2(store: Store) -> None:
    red, black = new_players(store)
    ratings = RatingStore(store)
    ratings.rate(finished_game(store, red, black, winner="red").id)  # red: above 1500 now
    draw = finished_game(store, red, black, winner=None, reason="agreement")
    done = ratings.rate(draw.id)
    assert done is not None
    shown = done[0].options["rated"]
    assert shown["red"]["delta"] < 0 < shown["black"]["delta"]


def test_a_game_is_rated_once_even_by_two_instances_at_once_B2(
    store: Store, database: tuple[str, str | None]
) -> None:
    """Two instances (two stores on one database) rate the same game at the same moment:
    one rating, two rows, one ``rated`` event."""
    red, black = new_players(store)
    game = finished_game(store, red, black)
    other = Store(*database)
    answers: list[Any] = []
    barrier = threading.Barrier(2)

    def rate(on: Store) -> None:
        barrier.wait()
        answers.append(RatingStore(on).rate(game.id))

    threads = [threading.Thread(target=rate, args=(s,)) for s in (store, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    other.dispose()

    assert sum(answer is not None for answer in answers) == 1
    assert RatingStore(store).rate(game.id) is None  # and never again
    assert RatingStore(store).of_player(red)["xiangqi"].games == 1
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(rating_changes)).scalar_one() == 2
    assert [e.type for e in store.events_after(game.id, 0)] == ["start", "end", "rated"]


@pytest.mark.parametrize(
    ("reason", "moves", "paired"),
    [
        ("interrupted", OPENING, True),  # R7: nobody's fault
        ("abandoned", OPENING, True),
        ("resignation", [], True),  # left before the first move: costs nothing
        ("timeout", ["h3e3"], True),  # black never moved
        ("resignation", OPENING, False),  # a private room's game is never rated
    ],
)
def test_games_not_played_out_or_not_paired_are_not_rated_B2(
    store: Store, reason: str, moves: list[str], paired: bool
) -> None:
    red, black = new_players(store)
    game = finished_game(store, red, black, reason=reason, moves=moves, paired=paired)
    assert RatingStore(store).rate(game.id) is None
    assert RatingStore(store).of_player(red)["xiangqi"].games == 0
    assert store.events_after(game.id, game.seq) == []


def test_the_same_two_players_rate_each_other_at_most_3_games_a_day_B2(store: Store) -> None:
    red, black = new_players(store)
    ratings = RatingStore(store)
    for _ in range(RATED_GAMES_PER_PAIR_PER_DAY):
        assert ratings.rate(finished_game(store, red, black).id) is not None
    before = ratings.of_player(red)["xiangqi"]

    # The fourth game of the day (colours swapped, other variant's rating untouched too).
    done = ratings.rate(finished_game(store, black, red, winner="black").id)

    assert done is not None
    shown = done[0].options["rated"]
    assert shown["counted"] is False and shown["reason"] == "pair_limit"
    assert shown["red"]["delta"] == shown["black"]["delta"] == 0
    assert ratings.of_player(red)["xiangqi"] == before
    # Another opponent still rates the same day.
    (third,) = new_players(store, 1)
    other = ratings.rate(finished_game(store, red, third).id)
    assert other is not None and other[0].options["rated"]["counted"] is True


# ---------------------------------------------------------------------- paired games


@pytest.fixture
def site(database: tuple[str, str | None]) -> Any:
    from test_pairing import Site

    running = Site(database)
    yield running
    running.close()


def test_a_paired_game_on_two_instances_rates_both_players_once_B1_B2(site: Any) -> None:
    """Two strangers paired on two instances play; Black resigns on the second instance: the
    game's ``rated`` event and options say the change, the profile shows the ratings, and
    the first instance meeting the same end rates nothing more."""

    async def scenario() -> None:
        first, second = await site.player(), await site.player()
        await site.pairing[0].seek(first, "xiangqi", {}, "c1", "10.0.0.1")
        paired = await site.pairing[1].seek(second, "xiangqi", {}, "c2", "10.0.0.2")
        room = await site.rooms[0].read_room(paired.room_id)
        red_id, black_id = room.sides
        by_id = {first.id: first, second.id: second}
        red, black = by_id[red_id], by_id[black_id]
        await site.rooms[0].move(red, room.id, 0, OPENING[0])
        await site.rooms[1].move(black, room.id, 1, OPENING[1])
        ended = await site.rooms[1].resign(black, room.id)

        winner = glicko2.update(glicko2.Rating(), [glicko2.Result(glicko2.Rating(), 1)])
        shown = ended.options["rated"]
        assert shown["red"]["after"] == round(winner.rating) and shown["red"]["provisional"]
        assert shown["black"]["delta"] == -shown["red"]["delta"] < 0
        events = await site.rooms[1].db(site.stores[1].events_after, ended.id, 0)
        assert [e.type for e in events][-2:] == ["end", "rated"]
        # The other instance meets the finished game: nothing is rated twice.
        again = await site.rooms[0].games.ratings.settle(ended)
        assert again.seq == ended.seq
        profile = await site.rooms[0].games.profile(red)
        assert profile["ratings"]["xiangqi"] == {
            "rating": round(winner.rating),
            "deviation": round(winner.deviation),
            "provisional": True,
            "games": 1,
        }
        assert profile["ratings"]["janggi"]["games"] == 0
        await asyncio.gather(*(rooms.stop() for rooms in site.rooms))

    asyncio.run(scenario())


def test_a_game_an_instance_ended_but_never_rated_is_rated_at_the_next_profile_read_B2(
    site: Any,
) -> None:
    """An instance commits a paired game's end and dies before rating it: the players' next
    profile read (on any instance) rates it."""

    async def scenario() -> None:
        first, second = await site.player(), await site.player()
        await site.pairing[0].seek(first, "jieqi", {}, "c1", "10.0.0.1")
        paired = await site.pairing[1].seek(second, "jieqi", {}, "c2", "10.0.0.2")
        room = await site.rooms[0].read_room(paired.room_id)
        game = await site.rooms[0].core.current_game(room)
        games = site.rooms[0].games
        # The end committed straight through the game service (no room step after it).
        finished = replace(
            game,
            moves=["e1e2", "e10e9"][:MIN_PLIES],  # the generals: no piece turned up
            status="finished",
            result={"winner": "red", "reason": "timeout", "points": None},
            seq=game.seq + 1,
        )
        await games.db(games.store.commit_change, game, finished, [{"type": "end"}])
        assert "rated" not in (await games.current_game(game.id)).options

        profile = await site.rooms[1].games.profile(first)

        assert profile["ratings"]["jieqi"]["games"] == 1
        assert "rated" in (await games.current_game(game.id)).options
        await asyncio.gather(*(rooms.stop() for rooms in site.rooms))

    asyncio.run(scenario())


def test_an_unrated_paired_game_is_found_among_many_private_room_games_B2(store: Store) -> None:
    """The catch-up of unrated games looks at paired games only: 25 private room games
    finished the same week do not hide one paired game left unrated."""
    red, black = new_players(store)
    for _ in range(25):
        finished_game(store, red, black, paired=False)
    paired = finished_game(store, red, black)
    since = utcnow() - timedelta(days=7)
    assert [g.id for g in RatingStore(store).unrated_games(red, since)] == [paired.id]
    RatingStore(store).rate(paired.id)
    assert RatingStore(store).unrated_games(red, since) == []
