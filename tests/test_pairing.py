"""Play a stranger (SPEC B1): the pairing rules as pure functions, and the pairing service
on SQLite and PostgreSQL, two instances sharing one database (site-wide: never with
oneself, never twice, nobody left waiting beside a compatible player)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chuhan.server.ai.pool import AIPool
from chuhan.server.db.database import Database
from chuhan.server.db.seeks import SeekStore
from chuhan.server.db.store import Store
from chuhan.server.games import changes as rules_of
from chuhan.server.games.service import GameService
from chuhan.server.hub.local import LocalHub
from chuhan.server.limits.budgets import CreationBudgets
from chuhan.server.limits.spending import Spending
from chuhan.server.pairing.rules import compatible, nearest, pairs, wish
from chuhan.server.pairing.service import GONE_SECONDS, PairingService
from chuhan.server.players.service import Players
from chuhan.server.records import Player, Seek
from chuhan.server.refusal import SeekError
from chuhan.server.rooms import rules as room_rules
from chuhan.server.rooms.service import RoomService, RoomSettings
from chuhan.server.rules_config import ClockRules
from chuhan.server.settings import Settings

T0 = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)


def _seek(
    player: str, rating: float = 1500, pool: str = "xiangqi:rules=casual", at: int = 0
) -> Seek:
    return Seek(player, pool, rating, T0 + timedelta(seconds=at))


# ---------------------------------------------------------------------- the rules


def test_only_the_same_game_by_two_different_players_is_compatible_B1() -> None:
    assert compatible(_seek("a"), _seek("b"))
    assert not compatible(_seek("a"), _seek("a", at=5))  # one player, two tabs
    assert not compatible(_seek("a"), _seek("b", pool="xiangqi:rules=wxf"))
    assert not compatible(
        _seek("a", pool="janggi:bikjang=off"), _seek("b", pool="janggi:bikjang=points")
    )


def test_the_nearest_in_rating_is_chosen_then_the_longest_waiting_B1() -> None:
    seeker = _seek("me", rating=1600, at=30)
    far, near_late, near_early = (
        _seek("far", 1900, at=0),
        _seek("x", 1650, at=20),
        _seek("y", 1550, at=10),
    )
    assert nearest(seeker, [far, near_late, near_early]) == near_early  # both 50 away: longer wait
    assert nearest(seeker, [far, _seek("me", 1600)]) == far  # never oneself
    assert nearest(seeker, [_seek("other", pool="jieqi:rules=casual")]) is None


def test_pairing_a_pool_pairs_each_player_once_and_leaves_at_most_one_waiting_B1() -> None:
    chance = random.Random(28)
    for _ in range(200):
        players = [f"p{chance.randrange(30)}" for _ in range(chance.randrange(0, 25))]
        waiting = [_seek(p, chance.uniform(1000, 2200), at=chance.randrange(100)) for p in players]
        made = pairs(waiting)
        paired = [s.player_id for pair in made for s in pair]
        assert len(paired) == len(set(paired))  # never twice
        assert all(a.player_id != b.player_id for a, b in made)  # never oneself
        left = {s.player_id for s in waiting} - set(paired)
        assert len(left) <= 1  # nobody waits beside a compatible player


def test_the_oldest_seek_is_served_first_with_its_nearest_rating_B1() -> None:
    oldest = _seek("old", 1500, at=0)
    made = pairs([_seek("strong", 2100, at=5), oldest, _seek("close", 1520, at=9)])
    assert [(a.player_id, b.player_id) for a, b in made] == [("old", "close")]


@pytest.mark.parametrize(
    ("variant", "options", "why"),
    [
        ("chess", {}, "variant must be"),
        ("janggi", {"rules": "wxf"}, "only the option 'bikjang'"),
        ("janggi", {"bikjang": "always"}, "bikjang must be off or points"),
        ("xiangqi", {"rules": "strict"}, "rules must be casual or wxf"),
        (None, None, "variant must be"),
    ],
)
def test_malformed_seeks_are_refused_with_the_reason_Z5(
    variant: Any, options: Any, why: str
) -> None:
    with pytest.raises(SeekError, match=why) as refused:
        wish(variant, options)
    assert refused.value.code == "bad_seek"


def test_a_seek_names_its_pool_with_the_default_option_B1() -> None:
    assert wish("janggi", {}).pool == "janggi:bikjang=off"
    assert wish("jieqi", {"rules": "wxf"}).pool == "jieqi:rules=wxf"


def test_a_paired_game_left_unbegun_by_the_side_to_move_ends_abandoned_on_time_B1() -> None:
    clock = ClockRules(turn_seconds=90, lag_cap_seconds=0)
    room = _paired_room()
    game = room_rules.new_game(room, room_rules.GameStart("g1", None), T0, clock, ttl_seconds=3600)
    assert game.options["paired"] is True
    late = T0 + timedelta(seconds=91)
    flagged = room_rules.overdue(game, room.sides, late)
    assert flagged is not None
    assert flagged.after.result == {
        "winner": None,
        "reason": "abandoned",
        "points": None,
    }
    # After each side's first move a flag loses as in rooms (R4).
    moved = rules_of.play_move(game, 0, "h3e3", 0)
    assert moved is not None
    answered = rules_of.play_move(moved.after, 1, "h8e8", 1)
    assert answered is not None
    flagged = room_rules.overdue(answered.after, room.sides, late)
    assert flagged is not None
    assert flagged.after.result is not None
    assert flagged.after.result["reason"] == "timeout"
    assert flagged.after.result["winner"] == "black"


def _paired_room() -> Any:
    from chuhan.server.records import RoomRecord

    return RoomRecord(
        id="r1",
        invite=None,
        password=None,
        open_password=None,
        variant="xiangqi",
        options={"rules": "casual", "paired": True},
        status="open",
        seats=[],
        sides=["pa", "pb"],
        setup=None,
        game_id="g1",
        version=1,
        created_at=T0,
    )


# ---------------------------------------------------------------------- the service


class Site:
    """Two instances (two pairing services) on one database: on SQLite they share the one
    store (SQLite serves one instance), on PostgreSQL each has its own."""

    def __init__(
        self, database: tuple[str, str | None], clock: Any = None, **room_settings: Any
    ) -> None:
        url, schema = database
        first = Store(url, schema)
        first.migrate()
        self.stores = [first, first if first.is_sqlite else Store(url, schema)]
        settings = RoomSettings(**room_settings)
        self.rooms = [
            RoomService(
                _games(store, Settings(database_url=url)),
                settings,
                *([clock] if clock is not None else []),
            )
            for store in self.stores
        ]
        self.pairing = [PairingService(rooms, settings.seeks_per_address) for rooms in self.rooms]
        self.players = [Players(r.games.db, r.games.spending, r.ratings) for r in self.rooms]
        self.started = False

    async def start(self) -> None:
        """The instances join the site (their heartbeats say their seeks are live)."""
        if self.started:
            return
        self.started = True
        for rooms in self.rooms:
            await rooms.start()

    async def stop(self) -> None:
        await asyncio.gather(*(rooms.stop() for rooms in self.rooms))

    async def player(self) -> Player:
        """A new visitor (the instances join first: a seek counts on a live instance)."""
        await self.start()
        player, _ = await self.players[0].new_player()
        return player

    def close(self) -> None:
        for store in set(self.stores):
            store.dispose()


@pytest.fixture
def site(database: tuple[str, str | None]) -> Any:
    running = Site(database)
    yield running
    running.close()


def test_two_players_on_two_instances_are_paired_into_a_private_room_game_B1(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        first, second = await site.player(), await site.player()
        waiting = await site.pairing[0].seek(first, "jieqi", {"rules": "wxf"}, "c1", "10.0.0.1")
        assert waiting.status == "waiting"
        paired = await site.pairing[1].seek(second, "jieqi", {"rules": "wxf"}, "c2", "10.0.0.2")
        assert paired.status == "paired"
        assert paired.room_id is not None
        told = await site.pairing[0].state(first)
        assert told is not None
        assert told.status == "paired"
        assert told.room_id == paired.room_id
        room = await site.rooms[0].read_room(paired.room_id)
        assert room is not None
        # R1: nobody else can join it (no password, no invite link); both seated, colours drawn.
        assert room.invite is None
        assert room.password is None
        assert sorted(room.sides or []) == sorted([first.id, second.id])
        assert room.options == {"rules": "wxf", "paired": True}
        game = await site.rooms[0].core.current_game(room)
        assert game is not None
        assert game.kind == "online"
        assert game.ongoing
        assert game.options["paired"] is True
        assert game.options["rules"] == "wxf"
        assert game.options["unscored"] == "paired"  # no R6 points for paired games
        await site.stop()

    asyncio.run(scenario())


def test_a_player_is_never_paired_with_themselves_two_tabs_are_one_seek_B1(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        me = await site.player()
        tab_one = await site.pairing[0].seek(me, "xiangqi", {}, "tab1", "10.0.0.1")
        tab_two = await site.pairing[1].seek(me, "xiangqi", {}, "tab2", "10.0.0.1")
        assert tab_one.status == tab_two.status == "waiting"
        assert tab_two.since == tab_one.since  # the same seek: its waiting time goes on
        since = site.pairing[0].live_since()
        counts = await site.rooms[0].db(site.pairing[0].store.counts, since)
        assert [(count.pool, count.waiting) for count in counts] == [("xiangqi:rules=casual", 1)]
        # The first tab closing does not withdraw the seek the second tab holds.
        await site.pairing[0].cancel(me, "tab1")
        still = await site.pairing[0].state(me)
        assert still is not None
        assert still.status == "waiting"
        assert await site.pairing[1].cancel(me) is None
        await site.stop()

    asyncio.run(scenario())


def test_many_seeking_at_once_on_two_instances_are_each_paired_once_B1(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        players = [await site.player() for _ in range(16)]
        variants = ["xiangqi", "janggi"]

        async def seek(index: int, player: Player) -> None:
            await site.pairing[index % 2].seek(
                player, variants[index % 4 // 2], {}, f"c{index}", f"10.0.{index}.1"
            )

        await asyncio.gather(*(seek(i, p) for i, p in enumerate(players)))
        states = [await site.pairing[0].state(p) for p in players]
        rooms = Counter(s.room_id for s in states if s is not None and s.status == "paired")
        assert len(rooms) == 8
        assert set(rooms.values()) == {2}  # everyone paired, once
        for room_id in rooms:
            room = await site.rooms[0].read_room(str(room_id))
            assert room is not None
            assert room.sides is not None
            assert len(set(room.sides)) == 2
        await site.stop()

    asyncio.run(scenario())


def test_a_paired_player_seeking_again_goes_back_to_their_game_until_it_ends_B1(
    site: Site,
) -> None:
    async def scenario() -> None:
        await site.start()
        first, second = await site.player(), await site.player()
        await site.pairing[0].seek(first, "xiangqi", {}, "c1", "10.0.0.1")
        paired = await site.pairing[1].seek(second, "xiangqi", {}, "c2", "10.0.0.2")
        again = await site.pairing[0].seek(first, "jieqi", {}, "c3", "10.0.0.1")
        assert again.status == "paired"
        assert again.room_id == paired.room_id  # never twice
        assert paired.room_id is not None
        await site.rooms[0].resign(first, paired.room_id)
        after = await site.pairing[0].seek(first, "jieqi", {}, "c3", "10.0.0.1")
        assert after.status == "waiting"
        assert after.variant == "jieqi"
        await site.stop()

    asyncio.run(scenario())


def test_a_player_in_a_room_game_with_a_friend_cannot_seek_B1(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        host, friend = await site.player(), await site.player()
        room = await site.rooms[0].create(host, "xiangqi", "off", None)
        await site.rooms[0].take_seat(friend, room.id)
        await site.rooms[0].ready(host, room.id)
        await site.rooms[0].ready(friend, room.id)
        with pytest.raises(SeekError) as refused:
            await site.pairing[1].seek(host, "xiangqi", {}, "c1", "10.0.0.1")
        assert refused.value.code == "already_playing"
        assert refused.value.extra["room"] == room.id
        await site.stop()

    asyncio.run(scenario())


def test_leaving_a_paired_game_before_ones_first_move_costs_nothing_after_it_loses_B1(
    site: Site,
) -> None:
    async def scenario() -> None:
        await site.start()
        rooms = site.rooms[0]

        async def paired_game(net: int) -> tuple[Any, Player, Player]:
            one, two = await site.player(), await site.player()
            await site.pairing[0].seek(one, "xiangqi", {}, "c1", f"10.{net}.0.1")
            state = await site.pairing[1].seek(two, "xiangqi", {}, "c2", f"10.{net}.0.2")
            room = await rooms.read_room(str(state.room_id))
            assert room is not None
            assert room.sides is not None
            red, black = sorted((one, two), key=lambda p: room.sides.index(p.id))  # type: ignore[union-attr]
            return room, red, black

        room, red, black = await paired_game(1)
        await rooms.move(red, room.id, 0, "h3e3")
        await rooms.leave(black, room.id)  # Black never moved: abandoned, no winner
        game = await rooms.core.current_game(room)
        assert game is not None
        assert game.result == {
            "winner": None,
            "reason": "abandoned",
            "points": None,
        }

        room, red, black = await paired_game(2)  # (black's address now waits, Z8)
        await rooms.move(red, room.id, 0, "h3e3")
        await rooms.move(black, room.id, 1, "h8e8")
        await rooms.leave(red, room.id)  # after their first move: leaving loses
        game = await rooms.core.current_game(room)
        assert game is not None
        assert game.result is not None
        assert game.result["winner"] == "black"
        assert game.result["reason"] == "resignation"
        assert game.points_awarded == 0  # paired games score no R6 points
        await site.stop()

    asyncio.run(scenario())


def test_a_seek_of_a_dead_instance_is_never_paired_and_dropped_once_old_B1(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        ghost, old_ghost, alive = await site.player(), await site.player(), await site.player()
        store: SeekStore = site.pairing[0].store
        # Both ghosts' seeks are held by an instance with no heartbeat (it died with them).
        now = datetime.now(UTC)
        xiangqi = wish("xiangqi", {})
        await site.rooms[0].db(store.put, ghost.id, xiangqi, "c0", "deadbeef", now)
        long_ago = now - timedelta(seconds=GONE_SECONDS + 1)
        await site.rooms[0].db(store.put, old_ghost.id, xiangqi, "c1", "deadbeef", long_ago)
        state = await site.pairing[1].seek(alive, "xiangqi", {}, "c2", "10.0.0.1")
        assert state.status == "waiting"  # nobody is paired with a ghost
        assert (await site.pairing[0].fresh_counts()).counts == {"xiangqi": 1}  # nor counts them
        kept = await site.pairing[0].state(ghost)  # its instance may only be late
        assert kept is not None
        assert kept.status == "waiting"
        assert await site.pairing[0].state(old_ghost) is None  # long gone: dropped
        await site.stop()

    asyncio.run(scenario())


def test_seeking_is_limited_per_address_Z7(database: tuple[str, str | None]) -> None:
    running = Site(database, seeks_per_address=3)

    async def scenario() -> None:
        await running.start()
        me = await running.player()
        for _ in range(3):
            await running.pairing[0].seek(me, "xiangqi", {}, "c1", "10.9.9.9")
        with pytest.raises(SeekError) as refused:
            await running.pairing[1].seek(me, "xiangqi", {}, "c1", "10.9.9.9")
        assert refused.value.code == "too_many_seeks"
        assert refused.value.status == 429
        assert refused.value.extra["retry_after"] >= 1
        other = await running.player()  # another address is not held back
        assert (await running.pairing[0].seek(other, "janggi", {}, "c2", "10.1.1.1")).status
        await running.stop()

    try:
        asyncio.run(scenario())
    finally:
        running.close()


def test_the_oldest_seek_takes_the_nearest_rated_of_those_waiting_B1_B2(site: Site) -> None:
    """Ratings from the ratings table (B2): several waiting (seeks that came in together),
    the longest waiting is paired with the one nearest in rating."""
    from chuhan.server.db.tables import ratings

    async def scenario() -> None:
        await site.start()
        first, strong, close = await site.player(), await site.player(), await site.player()
        store: SeekStore = site.pairing[0].store
        now = datetime.now(UTC)
        with store.engine.begin() as conn:
            for player, rating in ((strong, 2100.0), (close, 1480.0)):
                conn.execute(
                    ratings.insert().values(
                        player_id=player.id,
                        variant="xiangqi",
                        rating=rating,
                        deviation=60.0,
                        volatility=0.06,
                        games=20,
                        updated_at=now,
                    )
                )
        for offset, player in enumerate((first, strong, close)):
            when = now + timedelta(seconds=offset)
            store.put(player.id, wish("xiangqi", {}), "c", site.rooms[0].instance_id, when)
        fresh = site.pairing[0].live_since()
        gone = now - timedelta(minutes=10)
        [pairing] = store.match("xiangqi:rules=casual", fresh, gone, site.pairing[0]._new_room)
        assert {pairing.first.player_id, pairing.second.player_id} == {first.id, close.id}
        assert pairing.second.rating == 1480.0
        left = store.state(strong.id)
        assert left is not None
        assert left.status == "waiting"
        await site.stop()

    asyncio.run(scenario())


def test_a_paired_janggi_room_begins_with_the_setup_choice_at_once_B1_R3_R4(site: Site) -> None:
    async def scenario() -> None:
        await site.start()
        first, second = await site.player(), await site.player()
        await site.pairing[0].seek(first, "janggi", {"bikjang": "points"}, "c1", "10.0.0.1")
        paired = await site.pairing[1].seek(
            second, "janggi", {"bikjang": "points"}, "c2", "10.0.0.2"
        )
        room = await site.rooms[0].read_room(str(paired.room_id))
        assert room is not None
        assert room.options == {"bikjang": "points", "paired": True}
        assert room.setup is not None
        assert room.setup["turn"] == "han"  # J3, no Ready (R3)
        assert room.game_id is None
        assert room.sides is not None
        han = first if room.sides[1] == first.id else second
        cho = second if han is first else first
        await site.rooms[1].choose_setup(han, room.id, "EHEH")
        after = await site.rooms[0].choose_setup(cho, room.id, "HEEH")
        game = await site.rooms[0].core.current_game(after)
        assert game is not None
        assert game.options["paired"] is True
        assert game.options["bikjang"] == "points"
        assert game.options["setup"] == {"cho": "HEEH", "han": "EHEH"}
        await site.stop()

    asyncio.run(scenario())


def test_the_waiting_counts_are_per_rule_option_and_clock_and_leave_the_player_out_B1(
    site: Site,
) -> None:
    async def scenario() -> None:
        await site.start()
        quick, slow, casual = await site.player(), await site.player(), await site.player()
        wxf_quick = {"rules": "wxf", "clock": "5+3"}
        await site.pairing[0].seek(quick, "xiangqi", wxf_quick, "c1", "10.0.0.1")
        await site.pairing[1].seek(slow, "xiangqi", {"rules": "wxf"}, "c2", "10.0.0.2")
        await site.pairing[0].seek(casual, "xiangqi", {}, "c3", "10.0.0.3")
        counted = await site.pairing[0].fresh_counts()
        assert counted.counts == {"xiangqi": 3}  # three games asked for: nobody paired
        pools = {
            (pool["options"].get("rules"), pool["options"].get("clock")): pool["waiting"]
            for pool in counted.pools
        }
        assert pools == {("wxf", "5+3"): 1, ("wxf", None): 1, ("casual", None): 1}
        # The quick player is not among those they see waiting.
        own = await site.pairing[0].own_pool(quick)
        theirs = site.pairing[0].counts(own)
        assert theirs.counts == {"xiangqi": 2}
        assert all(p["options"].get("clock") != "5+3" for p in theirs.pools)
        await site.stop()

    asyncio.run(scenario())


def _games(store: Store, settings: Settings) -> GameService:
    db = Database(store)
    spending = Spending(db, CreationBudgets(store, settings.creation))
    return GameService(db, LocalHub(), AIPool(1, 1), settings, spending)
