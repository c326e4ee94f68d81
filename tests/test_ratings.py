"""Ratings (SPEC B2): Glicko-2 per variant from paired games, once per game, with
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

from chuhan.server import glicko2
from chuhan.server.db.ratings import RatingStore
from chuhan.server.db.store import Store
from chuhan.server.db.tables import player_networks, rating_changes
from chuhan.server.db.tables import ratings as ratings_table
from chuhan.server.rating_rules import AI_GAME_PLIES, MIN_PLIES, judge, rated
from chuhan.server.records import (
    NEWCOMER,
    PROVISIONAL_DEVIATION,
    GameKind,
    GameOptions,
    GameRecord,
    PlayerRating,
    utcnow,
)
from chuhan.server.rules_config import RatingRules

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
OPENING = ["h3e3", "h10g8", "b1c3", "b10c8"]
RULES = RatingRules()
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
    after, capped = rated(established, newcomer, 0)
    assert after.rating - established.rating == pytest.approx(
        (plain.rating - established.rating) * RULES.provisional_opponent_factor
    )
    assert after.rating > plain.rating
    assert not capped  # a loss to a fresh cookie costs less


def test_a_provisional_rating_gains_only_half_against_a_new_identity_too_Z8() -> None:
    """The booster stayed provisional, so the half-change rule never applied."""
    booster = glicko2.Rating(1900, 200, 0.2)
    cookie = glicko2.Rating()
    plain = glicko2.update(booster, [glicko2.Result(cookie, 1)])
    after, _ = rated(booster, cookie, 1)
    assert after.rating - booster.rating == pytest.approx(
        (plain.rating - booster.rating) * RULES.provisional_opponent_factor
    )
    # Against an established opponent the full Glicko-2 change.
    established = glicko2.Rating(1700, 60)
    full = glicko2.update(booster, [glicko2.Result(established, 1)])
    assert rated(booster, established, 1) == (full, False)


def test_a_gain_is_cut_to_what_is_left_of_the_hour_Z8() -> None:
    newcomer, established = glicko2.Rating(), glicko2.Rating(1500, 60)
    full, _ = rated(newcomer, established, 1)
    after, capped = rated(newcomer, established, 1, RULES, allowance=25.0)
    assert full.rating - 1500 > 25
    assert capped
    assert after.rating == pytest.approx(1525.0)
    assert after.deviation == full.deviation  # what the game says of certainty still holds
    # A loss is never cut, and nothing is left: no gain at all.
    assert rated(newcomer, established, 0, RULES, allowance=0.0)[0].rating < 1500
    assert rated(newcomer, established, 1, RULES, allowance=-10.0)[0].rating == 1500


def test_the_deviation_never_exceeds_glickmans_350_Z8() -> None:
    """A farm left the booster at a deviation of 528 after 7,500 games."""
    pumped = glicko2.Rating(2400, 528, 0.9)  # as stored before the cap
    assert glicko2.update(pumped, []).deviation == 350
    after = glicko2.update(pumped, [glicko2.Result(glicko2.Rating(), 1)])
    assert after.deviation <= 350
    capped_first = glicko2.update(
        glicko2.Rating(2400, 350, 0.9), [glicko2.Result(glicko2.Rating(), 1)]
    )
    assert after == capped_first  # the step is that of a 350 deviation, not 528's
    rating = glicko2.Rating()
    for _ in range(300):  # a farm's run of surprising wins against fresh identities
        rating = glicko2.update(rating, [glicko2.Result(glicko2.Rating(), 1)])
        assert rating.deviation <= 350


def _game(kind: GameKind, moves: list[str]) -> GameRecord:
    """A game red won by resignation, as the rules see it (no database)."""
    now = utcnow()
    return GameRecord(
        id="g",
        kind=kind,
        variant="xiangqi",
        start_fen=START,
        created_at=now,
        expires_at=now,
        moves=moves,
        status="finished",
        result={"winner": "red", "reason": "resignation"},
    )


class _Facts:
    """What storage would read for the rules (rating_rules.RatingFacts), given outright."""

    def __init__(self, **given: Any) -> None:
        self.given = {
            "network": False,
            "ai": RULES.ai_games_first,
            "pair": 0,
            "new": 0,
            "gained": 0.0,
        }
        self.given.update(given)
        self.asked: list[str] = []

    def share_a_network(self, first: str, second: str, since: Any) -> bool:
        self.asked.append("network")
        return bool(self.given["network"])

    def ai_games(self, player_id: str) -> list[GameRecord]:
        self.asked.append("ai")
        game = _game("ai", ["h3e3"] * AI_GAME_PLIES)
        return [game] * int(self.given["ai"])

    def counted_between(self, first: str, second: str, since: Any) -> int:
        self.asked.append("pair")
        return int(self.given["pair"])

    def against_new_opponents(self, player_id: str, variant: str, since: Any) -> int:
        self.asked.append("new")
        return int(self.given["new"])

    def gained(self, player_id: str, variant: str, since: Any) -> float:
        self.asked.append("gained")
        return float(self.given["gained"])


def test_the_rules_judge_a_game_from_what_storage_reads_B2_Z8() -> None:
    """The rating rules decide with no database (storage only answers their questions): the
    first reason that holds rates nobody, else Glicko-2 with the hour's allowance."""
    game = replace(_game("online", OPENING), options={"paired": True})
    players = ("red-player", "black-player")
    established = PlayerRating(glicko2.Rating(1500, 60), 30)
    before = (established, established)
    now = utcnow()
    for facts, reason in [
        (_Facts(network=True, pair=9), "same_network"),  # the first that holds
        (_Facts(ai=RULES.ai_games_first - 1), "new_player"),
        (_Facts(pair=RULES.games_per_pair_per_day), "pair_limit"),
    ]:
        verdict = judge(game, players, before, facts, now, RULES)
        assert not verdict.counted
        assert verdict.shown["reason"] == reason
        assert verdict.after == (established.rating, established.rating)
        assert verdict.shown["red"]["delta"] == verdict.shown["black"]["delta"] == 0
    newcomer = (NEWCOMER, established)  # red is new: black's games against new ones count
    limited = _Facts(new=RULES.new_opponents_per_day)
    verdict = judge(game, players, newcomer, limited, now, RULES)
    assert verdict.shown["reason"] == "new_opponent_limit"
    assert limited.asked == ["network", "ai", "ai", "pair", "new"]
    # Counted: red's gain cut to what is left of the hour, black's loss as Glicko-2 says.
    nearly_spent = _Facts(gained=RULES.gain_per_hour - 5)
    verdict = judge(game, players, before, nearly_spent, now, RULES)
    assert verdict.counted
    assert "reason" not in verdict.shown
    assert verdict.after[0].rating == pytest.approx(1505.0)
    assert verdict.shown["red"] == {
        "before": 1500,
        "after": 1505,
        "delta": 5,
        "provisional": False,
        "capped": True,
    }
    assert verdict.after[1] == rated(established.rating, established.rating, 0)[0]
    assert verdict.event() == {"type": "rated", "rated": verdict.shown}


# ---------------------------------------------------------------------- storage


@pytest.fixture
def store(database: tuple[str, str | None]) -> Any:
    url, schema = database
    store = Store(url, schema)
    store.migrate()
    yield store
    store.dispose()


def new_players(store: Store, count: int = 2, ai_games: int = RULES.ai_games_first) -> list[str]:
    """Players who each finished ``ai_games`` games against the AI (by default enough to be
    rated, Z8)."""
    ids = [f"p_{next(_ids)}" for _ in range(count)]
    for player_id in ids:
        store.create_player(player_id, f"hash-{player_id}")
        for _ in range(ai_games):
            ai_game(store, player_id)
    return ids


def ai_game(
    store: Store, player_id: str, plies: int = AI_GAME_PLIES, reason: str = "resignation"
) -> None:
    """A finished game of the player's against the AI, ``plies`` half-moves long."""
    now = utcnow()
    game = GameRecord(
        id=f"g_{next(_ids)}",
        kind="ai",
        variant="xiangqi",
        level="beginner",
        player_id=player_id,
        human_side=0,
        start_fen=START,
        moves=(OPENING * plies)[:plies],
        status="finished",
        result={"winner": "black", "reason": reason, "points": None},
        created_at=now,
        expires_at=now + timedelta(hours=1),
        seq=2,
    )
    store.insert_game(game, [{"type": "start"}, {"type": "end"}])


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
    options: GameOptions = {"rules": "casual", "paired": True} if paired else {}
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
    events: list[dict[str, Any]] = [
        {"type": "start"},
        {"type": "end", "result": game.result, "points_awarded": 0},
    ]
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
    # Two newcomers: each change is half of Glicko-2's (a provisional opponent, Z8).
    winner, _ = rated(glicko2.Rating(), glicko2.Rating(), 1)
    loser, _ = rated(glicko2.Rating(), glicko2.Rating(), 0)
    mine = ratings.of_player(red)
    assert mine["xiangqi"].rating.rating == pytest.approx(winner.rating)
    assert mine["xiangqi"].rating.deviation == pytest.approx(winner.deviation)
    assert mine["xiangqi"].games == 1
    assert mine["xiangqi"].provisional
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
    assert stored is not None
    assert stored.seq == game.seq + 1
    assert stored.options["rated"] == shown
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
    for _ in range(RULES.games_per_pair_per_day):
        assert ratings.rate(finished_game(store, red, black).id) is not None
    before = ratings.of_player(red)["xiangqi"]

    # The fourth game of the day (colours swapped, other variant's rating untouched too).
    done = ratings.rate(finished_game(store, black, red, winner="black").id)

    assert done is not None
    shown = done[0].options["rated"]
    assert shown["counted"] is False
    assert shown["reason"] == "pair_limit"
    assert shown["red"]["delta"] == shown["black"]["delta"] == 0
    assert ratings.of_player(red)["xiangqi"] == before
    # Another opponent still rates the same day.
    (third,) = new_players(store, 1)
    other = ratings.rate(finished_game(store, red, third).id)
    assert other is not None
    assert other[0].options["rated"]["counted"] is True


# ---------------------------------------------------------------------- bought ratings (Z8)


def _not_rated_because(store: Store, game: GameRecord, ratings: RatingStore) -> str | None:
    done = ratings.rate(game.id)
    assert done is not None
    shown = done[0].options["rated"]
    if shown["counted"]:
        return None
    assert shown["red"]["delta"] == shown["black"]["delta"] == 0
    return str(shown["reason"])


@pytest.mark.parametrize(
    ("first", "second", "together"),
    [
        ("203.0.113.7", "203.0.113.7", True),  # one IPv4 address
        ("203.0.113.7", "203.0.113.8", False),  # its neighbour: another customer
        ("2001:db8:1:2::5", "2001:db8:1:2::9", True),  # one IPv6 /64
        ("2001:db8:1:2::/64", "2001:db8:1:7::/64", True),  # one /48, as CLIENT_BLOCK says it
        ("2001:db8:1:2::5", "2001:db8:2:2::5", False),
        ("::ffff:203.0.113.7", "203.0.113.7", True),  # the same IPv4 address, mapped
    ],
)
def test_identities_seen_in_one_address_block_are_never_rated_together_Z8(
    store: Store, first: str, second: str, together: bool
) -> None:
    red, black = new_players(store)
    ratings = RatingStore(store)
    ratings.saw(red, first)
    ratings.saw(black, "198.51.100.1")  # elsewhere too: one shared block is enough
    ratings.saw(black, second)

    reason = _not_rated_because(store, finished_game(store, red, black), ratings)

    assert reason == ("same_network" if together else None)
    with store.engine.connect() as conn:  # nothing stored says an address
        stored = " ".join(str(row) for row in conn.execute(select(player_networks)))
    assert "203.0.113" not in stored
    assert "2001:db8" not in stored


def test_blocks_seen_longer_ago_than_the_window_are_forgotten_Z8(store: Store) -> None:
    red, black = new_players(store)
    ratings = RatingStore(store)
    long_ago = utcnow() - RULES.network_window - timedelta(minutes=1)
    ratings.saw(red, "203.0.113.7", long_ago)
    ratings.saw(black, "203.0.113.7")
    assert _not_rated_because(store, finished_game(store, red, black), ratings) is None
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(player_networks)).scalar_one() == 1


def test_a_new_identity_is_rated_only_after_a_few_finished_games_against_the_ai_Z8(
    store: Store,
) -> None:
    practised, (fresh,) = new_players(store)[0], new_players(store, 1, ai_games=0)
    ratings = RatingStore(store)
    # Games that do not count: too short, abandoned, expired.
    ai_game(store, fresh, plies=AI_GAME_PLIES - 1)
    ai_game(store, fresh, reason="abandoned")
    ai_game(store, fresh, reason="expired")
    for _ in range(RULES.ai_games_first - 1):
        ai_game(store, fresh)
    assert _not_rated_because(store, finished_game(store, practised, fresh), ratings) == (
        "new_player"
    )
    assert ratings.of_player(practised)["xiangqi"].games == 0

    ai_game(store, fresh)  # the last one it needed

    assert _not_rated_because(store, finished_game(store, fresh, practised), ratings) is None


def test_gains_add_up_to_at_most_the_hours_cap_whatever_the_identities_Z8(store: Store) -> None:
    """One booster beats fresh identity after fresh identity (each practised, each from its
    own address): its gains in the rolling hour stop at ``gain_per_hour``; an hour later
    it gains again."""
    (booster,) = new_players(store, 1)
    ratings = RatingStore(store)
    shown: list[dict[str, Any]] = []
    for _ in range(8):
        (cookie,) = new_players(store, 1)
        done = ratings.rate(finished_game(store, booster, cookie, winner="red").id)
        assert done is not None
        assert done[0].options["rated"]["counted"]
        shown.append(done[0].options["rated"]["red"])
    total = ratings.of_player(booster)["xiangqi"].rating.rating - 1500
    assert total == pytest.approx(RULES.gain_per_hour, abs=0.01)
    assert shown[-1]["delta"] == 0
    assert shown[-1]["capped"] is True
    assert "capped" not in shown[0]
    # An hour later (the rows moved back in time) the booster gains again.
    with store.engine.begin() as conn:
        conn.execute(
            rating_changes.update().values(
                created_at=rating_changes.c.created_at - timedelta(hours=1)
            )
        )
    (cookie,) = new_players(store, 1)
    done = ratings.rate(finished_game(store, booster, cookie, winner="red").id)
    assert done is not None
    assert done[0].options["rated"]["red"]["delta"] > 0


def test_rated_games_against_new_identities_stop_after_the_days_cap_Z8(store: Store) -> None:
    (booster,) = new_players(store, 1)
    ratings = RatingStore(store)
    for _ in range(RULES.new_opponents_per_day):
        (cookie,) = new_players(store, 1)
        assert _not_rated_because(store, finished_game(store, booster, cookie), ratings) is None
    (cookie,) = new_players(store, 1)
    game = finished_game(store, booster, cookie)
    assert _not_rated_because(store, game, ratings) == "new_opponent_limit"
    # An established opponent still rates the same day.
    (veteran,) = new_players(store, 1)
    with store.engine.begin() as conn:
        conn.execute(
            ratings_table.insert().values(
                player_id=veteran,
                variant="xiangqi",
                rating=1500.0,
                deviation=PROVISIONAL_DEVIATION - 10,
                volatility=0.06,
                games=40,
                updated_at=utcnow(),
            )
        )
    assert _not_rated_because(store, finished_game(store, veteran, booster), ratings) is None


# ---------------------------------------------------------------------- paired games


@pytest.fixture
def site(database: tuple[str, str | None]) -> Any:
    from test_pairing import Site

    class RatingSite(Site):
        async def practised(self) -> Any:
            """A new visitor who then finished enough games against the AI to be rated."""
            player = await self.player()
            for _ in range(RULES.ai_games_first):
                ai_game(self.stores[0], player.id)
            return player

    running = RatingSite(database)
    yield running
    running.close()


def test_a_paired_game_on_two_instances_rates_both_players_once_B1_B2(site: Any) -> None:
    """Two strangers paired on two instances play; Black resigns on the second instance: the
    game's ``rated`` event and options say the change, the profile shows the ratings, and
    the first instance meeting the same end rates nothing more."""

    async def scenario() -> None:
        first, second = await site.practised(), await site.practised()
        await site.pairing[0].seek(first, "xiangqi", {}, "c1", "10.0.0.1")
        paired = await site.pairing[1].seek(second, "xiangqi", {}, "c2", "10.0.0.2")
        room = await site.rooms[0].read_room(paired.room_id)
        red_id, black_id = room.sides
        by_id = {first.id: first, second.id: second}
        red, black = by_id[red_id], by_id[black_id]
        await site.rooms[0].move(red, room.id, 0, OPENING[0])
        await site.rooms[1].move(black, room.id, 1, OPENING[1])
        ended = await site.rooms[1].resign(black, room.id)

        winner, _ = rated(glicko2.Rating(), glicko2.Rating(), 1)
        shown = ended.options["rated"]
        assert shown["red"]["after"] == round(winner.rating)
        assert shown["red"]["provisional"]
        assert shown["black"]["delta"] == -shown["red"]["delta"] < 0
        events = await site.rooms[1].db(site.stores[1].events_after, ended.id, 0)
        assert [e.type for e in events][-2:] == ["end", "rated"]
        # The other instance meets the finished game: nothing is rated twice.
        again = await site.rooms[0].ratings.settle(ended)
        assert again.seq == ended.seq
        profile = await site.players[0].profile(red)
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
        first, second = await site.practised(), await site.practised()
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

        profile = await site.players[1].profile(first)

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
