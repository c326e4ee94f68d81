"""Aborting a paired game costs something (SPEC Z8, B1): the rules as pure functions, then the
pairing service on SQLite and PostgreSQL with a clock the test moves.

A paired game left (or let run out) before one's own first move ends abandoned and unrated;
the leaver then waits before seeking again, 15 s doubling with every abort remembered,
counted per player and per address block (fresh cookies of one address pay as one), their
waiting seeks are not paired meanwhile, and the pair is not paired together again at once.
Nothing of it depends on who the opponent was."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chuhan.server.pairing.rules import (
    FIRST_COOLDOWN_SECONDS,
    MAX_COOLDOWN_SECONDS,
    cooldown_seconds,
    cooling_until,
    pairs,
)
from chuhan.server.records import ManualClock, Player, Seek, SeekState
from chuhan.server.refusal import GameActionError, SeekError
from test_pairing import Site

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
SNIPER = "203.0.113.5"  # one address, several cookies


def test_the_wait_after_aborting_doubles_with_each_abort_up_to_an_hour_Z8() -> None:
    assert cooldown_seconds(0) == 0
    assert [cooldown_seconds(n) for n in (1, 2, 3, 4)] == [15, 30, 60, 120]
    assert cooldown_seconds(1) == FIRST_COOLDOWN_SECONDS
    assert cooldown_seconds(50) == MAX_COOLDOWN_SECONDS == 3600
    assert cooling_until([]) is None
    aborts = [T0, T0 + timedelta(seconds=40)]
    assert cooling_until(aborts) == T0 + timedelta(seconds=40 + 30)


def test_a_pair_that_just_aborted_is_not_paired_together_again_Z8() -> None:
    a, b, c = (Seek(p, "xiangqi:rules=casual", 1500, T0) for p in ("a", "b", "c"))
    assert pairs([a, b]) == [(a, b)]
    assert pairs([a, b], {frozenset(("a", "b"))}) == []
    # Kept apart, each is paired with someone else.
    assert pairs([a, b, c], {frozenset(("a", "b"))}) == [(a, c)]


# ---------------------------------------------------------------------- the service


class Moving:
    """Two pairing instances on one database with a clock the test moves."""

    def __init__(self, database: tuple[str, str | None]) -> None:
        self.clock = ManualClock()
        self.site = Site(database, clock=self.clock)
        self.rooms = self.site.rooms[0]
        self.pairing = self.site.pairing

    async def start(self) -> None:
        """Both instances join; the second waits to hear the first beat again (its clock
        moves on a little meanwhile). From then on the test beats for them.

        Their own heartbeats, every real second, read the clock and then write: one that read
        before :meth:`advance` moved the clock could land after the test's beat and take the
        instance 16 s back, and its seeks, silent, would not be paired (as a loaded machine
        showed). So they stop, and each instance beats when the clock moves."""

        async def ticking() -> None:
            while True:
                await asyncio.sleep(0.05)
                self.clock.advance(0.05)

        ticker = asyncio.get_running_loop().create_task(ticking())
        try:
            await self.site.start()
        finally:
            ticker.cancel()
        for rooms in self.site.rooms:
            heartbeat = rooms.registry.heartbeat
            if heartbeat is not None:
                heartbeat.cancel()
                await asyncio.gather(heartbeat, return_exceptions=True)
        await self.advance(0)

    async def advance(self, seconds: float) -> None:
        """Later by ``seconds``; both instances beat at the new time (still alive)."""
        self.clock.advance(seconds)
        for rooms in self.site.rooms:
            await rooms.db(rooms.instances.beat, rooms.instance_id, rooms.core.now(), None)

    async def seek(self, player: Player, address: str, on: int = 0) -> SeekState:
        state: SeekState = await self.pairing[on].seek(
            player, "xiangqi", {}, f"c-{player.id}", address
        )
        return state

    async def refused(self, player: Player, address: str) -> SeekError:
        with pytest.raises(SeekError) as refused:
            await self.seek(player, address)
        return refused.value

    async def sides(self, state: SeekState) -> tuple[Any, str, str]:
        room = await self.rooms.read_room(str(state.room_id))
        assert room is not None
        assert room.sides is not None
        return room, room.sides[0], room.sides[1]


@pytest.fixture
def moving(database: tuple[str, str | None]) -> Any:
    running = Moving(database)
    yield running
    running.site.close()


def test_leaving_unbegun_costs_a_growing_wait_per_player_and_address_Z8(moving: Moving) -> None:
    async def scenario() -> None:
        site = moving.site
        await moving.start()
        sniper, second_cookie = await site.player(), await site.player()
        elsewhere = await site.player()
        honest = [await site.player() for _ in range(3)]
        await moving.seek(sniper, SNIPER)
        paired = await moving.seek(honest[0], "198.51.100.1", on=1)
        assert paired.status == "paired"
        await moving.rooms.leave(sniper, str(paired.room_id))  # before any first move
        room, _, _ = await moving.sides(paired)
        game = await moving.rooms.core.current_game(room)
        assert game is not None
        assert game.result is not None
        assert game.result["reason"] == "abandoned"  # unrated, no loss (B1)

        refused = await moving.refused(sniper, SNIPER)
        assert refused.code == "abort_cooldown"
        assert refused.status == 429
        assert refused.extra["retry_after"] == 15
        # A fresh cookie from the same address waits as long: the address pays.
        assert (await moving.refused(second_cookie, SNIPER)).extra["retry_after"] == 15
        # The same cookie from another address too: the player pays.
        assert (await moving.refused(sniper, "192.0.2.77")).code == "abort_cooldown"
        # Nobody else is held back; the honest opponent seeks again at once.
        assert (await moving.seek(elsewhere, "192.0.2.8")).status == "waiting"
        assert (await moving.seek(honest[0], "198.51.100.1")).status == "paired"

        await moving.advance(FIRST_COOLDOWN_SECONDS + 1)
        assert (await moving.seek(sniper, SNIPER)).status == "waiting"
        paired = await moving.seek(honest[1], "198.51.100.2", on=1)
        assert paired.status == "paired"
        await moving.rooms.leave(sniper, str(paired.room_id))
        assert (await moving.refused(sniper, SNIPER)).extra["retry_after"] == 30  # doubled
        assert (await moving.refused(second_cookie, SNIPER)).extra["retry_after"] == 30
        await site.stop()

    asyncio.run(scenario())


def test_a_cooling_addresss_waiting_seeks_are_not_paired_nor_the_same_pair_again_Z8(
    moving: Moving,
) -> None:
    async def scenario() -> None:
        site = moving.site
        await moving.start()
        sniper, decoy = await site.player(), await site.player()
        target, bystander, newcomer = await site.player(), await site.player(), await site.player()
        await moving.seek(sniper, SNIPER)
        paired = await moving.seek(target, "198.51.100.1", on=1)
        await moving.seek(decoy, SNIPER)  # the sniper's second cookie, waiting
        await moving.rooms.leave(sniper, str(paired.room_id))
        # While the address waits, its waiting cookie is not paired with anyone.
        assert (await moving.seek(bystander, "198.51.100.2", on=1)).status == "waiting"
        decoy_state = await moving.pairing[0].state(decoy)
        assert decoy_state is not None
        assert decoy_state.status == "waiting"
        await moving.pairing[1].cancel(bystander)

        await moving.advance(FIRST_COOLDOWN_SECONDS + 1)
        await moving.pairing[0].cancel(decoy)
        # The wait is over, but the pair that aborted is kept apart for a while.
        assert (await moving.seek(sniper, SNIPER)).status == "waiting"
        assert (await moving.seek(target, "198.51.100.1", on=1)).status == "waiting"
        paired = await moving.seek(newcomer, "198.51.100.3", on=1)
        assert paired.status == "paired"
        _, red, black = await moving.sides(paired)
        assert newcomer.id in (red, black)
        assert {red, black} != {sniper.id, target.id}
        await site.stop()

    asyncio.run(scenario())


def test_letting_the_first_turn_run_out_costs_the_mover_not_the_opponent_Z8(
    moving: Moving,
) -> None:
    async def scenario() -> None:
        site = moving.site
        await moving.start()
        one, two = await site.player(), await site.player()
        await moving.seek(one, "198.51.100.1")
        paired = await moving.seek(two, "198.51.100.2", on=1)
        room, red_id, _ = await moving.sides(paired)
        red, black = (one, two) if red_id == one.id else (two, one)
        await moving.advance(moving.rooms.clock_rules.turn_seconds + 5)
        with pytest.raises(GameActionError) as late:
            await moving.rooms.resign(black, room.id)  # the clock decides first
        assert late.value.code == "time_out"
        game = await moving.rooms.core.current_game(room)
        assert game is not None
        assert game.result is not None
        assert game.result["reason"] == "abandoned"
        address = {one.id: "198.51.100.1", two.id: "198.51.100.2"}
        assert (await moving.refused(red, address[red.id])).code == "abort_cooldown"
        assert (await moving.seek(black, address[black.id])).status == "waiting"
        await site.stop()

    asyncio.run(scenario())


def test_leaving_a_paired_janggi_room_during_the_setup_choice_costs_too_Z8(
    moving: Moving,
) -> None:
    async def scenario() -> None:
        site = moving.site
        await moving.start()
        han_seeker, other = await site.player(), await site.player()
        await moving.pairing[0].seek(han_seeker, "janggi", {}, "c1", "198.51.100.1")
        paired = await moving.pairing[1].seek(other, "janggi", {}, "c2", "198.51.100.2")
        room = await moving.rooms.read_room(str(paired.room_id))
        assert room is not None
        assert room.setup is not None
        assert room.game_id is None
        await moving.rooms.leave(han_seeker, room.id)  # no game yet: still unbegun
        with pytest.raises(SeekError) as refused:
            await moving.pairing[0].seek(han_seeker, "janggi", {}, "c1", "198.51.100.1")
        assert refused.value.code == "abort_cooldown"
        assert refused.value.extra["retry_after"] == FIRST_COOLDOWN_SECONDS
        await site.stop()

    asyncio.run(scenario())


def test_an_ipv6_abort_makes_its_whole_slash_48_wait_not_its_neighbours_Z8(
    moving: Moving,
) -> None:
    async def scenario() -> None:
        site = moving.site
        await moving.start()
        sniper, next_door, elsewhere = await site.player(), await site.player(), await site.player()
        honest = await site.player()
        await moving.seek(sniper, "2001:db8:7:1::1")
        paired = await moving.seek(honest, "198.51.100.1", on=1)
        await moving.rooms.leave(sniper, str(paired.room_id))
        # Another /64 of the same /48 (one holder of many /64s) waits as well...
        assert (await moving.refused(next_door, "2001:db8:7:2::1")).code == "abort_cooldown"
        # ...another /48 does not.
        assert (await moving.seek(elsewhere, "2001:db8:8:1::1")).status == "waiting"
        await site.stop()

    asyncio.run(scenario())
