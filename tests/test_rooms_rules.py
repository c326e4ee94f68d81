"""The room rules as pure functions, without a server or a database (SPEC R3–R7, J3).

Each test is a room or game as read, an action at a moment, and what the rules decide.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chuhan.server.games import changes as rules_of
from chuhan.server.records import Change, GameRecord, JanggiSetups, RoomRecord, parse_iso
from chuhan.server.rooms import clocks, rules
from chuhan.server.rooms.lobby import seated, vacated
from chuhan.server.rooms.presence import attached, detached, without_instances
from chuhan.server.rooms.rules import GameStart, RoomError
from chuhan.server.rooms.scoring import (
    ONLINE_WIN_POINTS,
    SCORED_GAMES_PER_PAIR,
    scored,
    unscored_reason,
)
from chuhan.server.rules_config import ClockRules

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CLOCK = ClockRules(turn_seconds=90, lag_cap_seconds=2, away_budget_seconds=120)
ALICE, BOB = "p_alice", "p_bob"


def seconds(n: float) -> timedelta:
    return timedelta(seconds=n)


def room(variant: str = "xiangqi", **changes: Any) -> RoomRecord:
    """A room with Alice and Bob seated and connected, no game yet."""
    seats = [
        {"player": ALICE, "ready": False, "device": "a/c1", "connected": True, "instance": "i1"},
        {"player": BOB, "ready": False, "device": "b/c1", "connected": True, "instance": "i2"},
    ]
    base = RoomRecord(
        id="r_1",
        invite="inv",
        password=None,
        open_password=None,
        variant=variant,
        options={"bikjang": "off"} if variant == "janggi" else {},
        status="open",
        seats=seats,
        sides=None,
        setup=None,
        game_id=None,
        version=1,
        created_at=T0,
        updated_at=T0,
    )
    return replace(base, **changes)


def playing(variant: str = "xiangqi") -> tuple[RoomRecord, GameRecord]:
    """Alice plays side 0 (red, cho), Bob side 1; the first turn started at T0."""
    setups = JanggiSetups(cho="HEHE", han="EHEH") if variant == "janggi" else None
    r = room(variant, sides=[ALICE, BOB], game_id="g_1")
    return r, rules.new_game(r, GameStart("g_1", setups), T0, CLOCK, ttl_seconds=3600)


def moved(game: GameRecord, text: str, at: datetime, sides: list[str]) -> GameRecord:
    change = rules_of.play_move(game, game.ply, text, rules_of.turn_of(game))
    assert change is not None
    return rules.after_move(change, sides, 1 - rules_of.turn_of(change.after), at, CLOCK).after


def away(r: RoomRecord, *players: str) -> RoomRecord:
    seats = [{**s, "connected": s["player"] not in players} for s in r.seats]
    return replace(r, seats=seats)


# ---------------------------------------------------------------------- R3: ready, colours


def test_one_ready_player_waits_for_the_other_R3() -> None:
    after = rules.press_ready(
        room(), ALICE, T0, CLOCK, swap=False, game_id="g_1", expected_game_id=None
    )
    assert after is not None
    assert [s["ready"] for s in after.seats] == [True, False]
    assert after.game_id is None
    assert after.sides is None


@pytest.mark.parametrize(("swap", "red"), [(False, ALICE), (True, BOB)])
def test_both_ready_draws_colours_and_starts_the_game_R3(swap: bool, red: str) -> None:
    one = room(seats=[{**s, "ready": s["player"] == ALICE} for s in room().seats])
    after = rules.press_ready(one, BOB, T0, CLOCK, swap=swap, game_id="g_1", expected_game_id=None)
    assert after is not None
    assert after.game_id == "g_1"
    assert after.sides is not None
    assert after.sides[0] == red
    assert not any(s["ready"] for s in after.seats)  # R3: both press ready again next time


def test_ready_after_the_game_began_changes_nothing_R3() -> None:
    started = room(sides=[ALICE, BOB], game_id="g_2")
    decided = rules.press_ready(
        started, ALICE, T0, CLOCK, swap=False, game_id="g_3", expected_game_id="g_1"
    )
    assert decided is None


def test_ready_without_a_seat_is_refused() -> None:
    with pytest.raises(RoomError) as refused:
        rules.press_ready(
            room(), "p_eve", T0, CLOCK, swap=False, game_id="g_1", expected_game_id=None
        )
    assert refused.value.code == "not_found"


def test_janggi_ready_opens_the_setup_choice_for_han_first_R4_J3() -> None:
    one = room("janggi", seats=[{**s, "ready": s["player"] == ALICE} for s in room().seats])
    after = rules.press_ready(one, BOB, T0, CLOCK, swap=False, game_id="g_1", expected_game_id=None)
    assert after is not None
    assert after.setup is not None
    assert after.game_id is None
    assert after.setup["turn"] == "han"
    assert parse_iso(after.setup["deadline"]) == T0 + seconds(90)


# ---------------------------------------------------------------------- B4: rematch


def after_a_game(variant: str = "xiangqi", /, **seat_changes: Any) -> RoomRecord:
    """Alice played red (cho), Bob black (han) in game g_1, which is over (the service
    checks that); ``seat_changes``: player id → the fields of their seat to change."""
    seats = [{**s, **seat_changes.get(s["player"], {})} for s in room().seats]
    return room(variant, seats=seats, sides=[ALICE, BOB], game_id="g_1")


def rematch(r: RoomRecord, player: str, action: str) -> RoomRecord | None:
    return rules.rematch(r, player, action, T0, CLOCK, game_id="g_2", expected_game_id="g_1")


def test_a_rematch_offer_waits_for_the_opponent_and_starts_nothing_B4() -> None:
    after = rematch(after_a_game(), ALICE, "offer")
    assert after is not None
    assert [s.get("rematch") for s in after.seats] == ["offered", None]
    assert after.game_id == "g_1"
    assert after.sides == [ALICE, BOB]
    assert rematch(after, ALICE, "offer") is None  # offered twice: nothing changes


@pytest.mark.parametrize("action", ["accept", "offer"])
def test_an_accepted_rematch_starts_the_next_game_with_colours_swapped_B4(action: str) -> None:
    offered = after_a_game(**{ALICE: {"rematch": "offered"}, BOB: {"ready": True}})
    after = rematch(offered, BOB, action)  # an offer crossing the other's open one accepts it
    assert after is not None
    assert after.game_id == "g_2"
    assert after.sides == [BOB, ALICE]  # not drawn at random (R3): swapped
    assert [(s["ready"], s["rematch"]) for s in after.seats] == [(False, None), (False, None)]


def test_a_janggi_rematch_opens_the_setup_choice_with_sides_swapped_B4_J3() -> None:
    offered = after_a_game("janggi", **{BOB: {"rematch": "offered"}})
    after = rematch(offered, ALICE, "accept")
    assert after is not None
    assert after.setup is not None
    assert after.sides == [BOB, ALICE]
    assert after.game_id is None
    assert after.setup["turn"] == "han"


def test_a_declined_rematch_tells_the_offerer_who_may_offer_again_B4() -> None:
    offered = after_a_game(**{ALICE: {"rematch": "offered"}})
    declined = rematch(offered, BOB, "decline")
    assert declined is not None
    assert [s.get("rematch") for s in declined.seats] == ["declined", None]
    with pytest.raises(RoomError) as refused:
        rematch(declined, BOB, "accept")  # nothing left to accept
    assert refused.value.code == "no_offer"
    again = rematch(declined, ALICE, "offer")
    assert again is not None
    assert again.seats[0]["rematch"] == "offered"


def test_the_offerer_cancels_and_the_offer_is_gone_B4() -> None:
    offered = after_a_game(**{ALICE: {"rematch": "offered"}})
    with pytest.raises(RoomError) as refused:
        rematch(offered, BOB, "cancel")  # Bob has no offer of his own
    assert refused.value.code == "no_offer"
    cancelled = rematch(offered, ALICE, "cancel")
    assert cancelled is not None
    assert cancelled.seats[0]["rematch"] is None
    with pytest.raises(RoomError) as late:
        rematch(cancelled, BOB, "accept")
    assert late.value.code == "no_offer"


def test_a_rematch_is_only_between_the_last_games_two_players_B4() -> None:
    eve = {**room().seats[1], "player": "p_eve"}
    newcomer = replace(after_a_game(), seats=[room().seats[0], eve])
    with pytest.raises(RoomError) as refused:
        rematch(newcomer, ALICE, "offer")
    assert refused.value.code == "no_rematch"
    with pytest.raises(RoomError) as first:  # no game yet: Ready draws the colours (R3)
        rules.rematch(room(), ALICE, "offer", T0, CLOCK, game_id="g_1", expected_game_id=None)
    assert first.value.code == "no_rematch"


def test_a_rematch_after_the_room_moved_on_changes_nothing_B4() -> None:
    moved_on = after_a_game(**{ALICE: {"rematch": "offered"}})
    decided = rules.rematch(
        moved_on, BOB, "accept", T0, CLOCK, game_id="g_3", expected_game_id="g_0"
    )
    assert decided is None


def test_ready_starts_a_game_with_every_rematch_offer_cleared_R3_B4() -> None:
    one = after_a_game(**{ALICE: {"ready": True, "rematch": "declined"}})
    after = rules.press_ready(
        one, BOB, T0, CLOCK, swap=False, game_id="g_2", expected_game_id="g_1"
    )
    assert after is not None
    assert after.game_id == "g_2"
    assert [s["rematch"] for s in after.seats] == [None, None]


# ---------------------------------------------------------------------- R4, J3: janggi setup


def choosing() -> RoomRecord:
    setup = {
        "turn": "han",
        "han": None,
        "cho": None,
        "deadline": clocks.iso(T0 + seconds(90)),
        "away_budget": 120.0,
        "both_away_since": None,
    }
    return room("janggi", sides=[ALICE, BOB], setup=setup)  # Bob is Han


def test_han_chooses_first_then_cho_sees_it_and_the_game_starts_R4_J3() -> None:
    with pytest.raises(RoomError) as refused:
        rules.choose_setup(choosing(), ALICE, "EHEH", T0, CLOCK, game_id="g_1")
    assert refused.value.code == "not_your_turn"
    han_done, start = rules.choose_setup(
        choosing(), BOB, "EHEH", T0 + seconds(5), CLOCK, game_id="g_1"
    )
    assert start is None
    assert han_done is not None
    assert han_done.setup is not None
    assert han_done.setup["turn"] == "cho"
    assert han_done.setup["han"] == "EHEH"
    assert parse_iso(han_done.setup["deadline"]) == T0 + seconds(95)
    over, start = rules.choose_setup(han_done, ALICE, "HEEH", T0 + seconds(9), CLOCK, game_id="g_1")
    assert over is not None
    assert over.setup is None
    assert over.game_id == "g_1"
    assert start == GameStart("g_1", {"cho": "HEEH", "han": "EHEH"}, {"away_budget": 120.0})


def test_the_clock_chooses_the_default_setup_only_after_the_deadline_R4() -> None:
    early, start = rules.choose_setup(
        choosing(), None, "HEHE", T0 + seconds(89), CLOCK, game_id="g_1"
    )
    assert early is None
    assert start is None
    late, _ = rules.choose_setup(choosing(), None, "HEHE", T0 + seconds(91), CLOCK, game_id="g_1")
    assert late is not None
    assert late.setup is not None
    assert late.setup["han"] == "HEHE"


def test_a_setup_wait_that_spends_the_budget_starts_an_interrupted_game_R7() -> None:
    waiting = rules.setup_presence(away(choosing(), ALICE, BOB), T0 + seconds(10), CLOCK)
    assert waiting is not None
    assert waiting.setup is not None
    assert waiting.setup["both_away_since"] == clocks.iso(T0 + seconds(10))
    spent = T0 + seconds(131)
    after, start = rules.choose_setup(waiting, None, "HEHE", spent, CLOCK, game_id="g_1")
    assert after is not None
    assert start is not None
    assert start.away == {"away_budget": 0.0, "both_away_since": clocks.iso(spent)}
    game = rules.new_game(after, start, spent, CLOCK, ttl_seconds=3600)
    ended = rules.overdue(game, after.sides, spent)
    assert ended is not None
    assert ended.after.result is not None
    assert ended.after.result["reason"] == "interrupted"
    assert ended.award is None


# ---------------------------------------------------------------------- R4: the turn clock


def test_a_new_game_runs_the_first_turn_clock_and_no_offer_R4_R5() -> None:
    _, game = playing()
    assert game.kind == "online"
    assert game.ongoing
    assert clocks.due(game.options["clock"]) == (T0 + seconds(90), "timeout")
    assert game.options["draw"] == {
        "offer_by": None,
        "last_offer_ply": {"red": None, "black": None},
    }


def test_jieqi_game_keeps_its_arrangement_secret_Q5() -> None:
    _, game = playing("jieqi")
    assert game.secret is not None
    assert set(game.secret) == {"arrangement", "salt"}
    assert "secret" not in game.options


def test_a_move_starts_the_next_turn_with_the_movers_opponents_lag_R4() -> None:
    r, game = playing()
    change = rules_of.play_move(game, 0, "b1c3", 0)
    assert change is not None
    after = rules.after_move(change, r.sides, 0, T0 + seconds(30), CLOCK, lag_of_next=0.4).after
    assert parse_iso(after.options["clock"]["deadline"]) == T0 + seconds(120.4)
    assert after.seq == game.seq + 1


def test_the_side_to_move_loses_on_time_and_the_winner_scores_R4_R6() -> None:
    r, game = playing()
    assert rules.overdue(game, r.sides, T0 + seconds(89.9)) is None
    flagged = rules.overdue(game, r.sides, T0 + seconds(90))
    assert flagged is not None
    assert flagged.after.result is not None
    assert flagged.after.result["winner"] == "black"
    assert flagged.after.result["reason"] == "timeout"
    assert flagged.award is not None
    assert flagged.award.player_id == BOB
    assert flagged.award.points == ONLINE_WIN_POINTS == 50


def test_a_finished_game_is_never_flagged_R4() -> None:
    r, game = playing()
    resigned = rules_of.resign(game, 0).after
    assert rules.overdue(resigned, r.sides, T0 + seconds(500)) is None


# ---------------------------------------------------------------------- R5: draw offers


def test_a_draw_is_offered_only_on_your_own_turn_R5() -> None:
    _, game = playing()
    with pytest.raises(RoomError) as refused:
        rules.offer_draw(game, 1)
    assert refused.value.code == "not_your_turn"
    offered = rules.offer_draw(game, 0)
    assert offered.after.options["draw"]["offer_by"] == "red"
    assert [e["type"] for e in offered.events] == ["draw_offered"]
    # R5: offering does not reset the clock.
    assert offered.after.options["clock"] == game.options["clock"]


def test_ten_half_moves_between_ones_own_offers_R5() -> None:
    r, game = playing()
    sides = r.sides or []
    game = rules.offer_draw(game, 0).after
    with pytest.raises(RoomError) as refused:
        rules.offer_draw(game, 0)
    assert refused.value.code == "already_offered"
    # Ten half-moves of soldiers stepping forward (no repetition).
    shuffle = [f"{f}4{f}5" if i % 2 == 0 else f"{f}7{f}6" for f in "acegi" for i in (0, 1)]
    for index, text in enumerate(shuffle[:8]):
        game = moved(game, text, T0 + seconds(index), sides)
    with pytest.raises(RoomError) as refused:
        rules.offer_draw(game, 0)
    assert refused.value.code == "too_soon"
    assert "2 to go" in refused.value.message
    for index, text in enumerate(shuffle[8:10]):
        game = moved(game, text, T0 + seconds(10 + index), sides)
    assert rules.offer_draw(game, 0).after.options["draw"]["last_offer_ply"]["red"] == 10


def test_the_offer_stays_when_its_maker_moves_and_falls_when_the_recipient_moves_R5() -> None:
    r, game = playing()
    sides = r.sides or []
    game = rules.offer_draw(game, 0).after
    game = moved(game, "b1c3", T0 + seconds(1), sides)
    assert game.options["draw"]["offer_by"] == "red"  # the maker moved: still open
    change = rules_of.play_move(game, 1, "b10c8", 1)
    assert change is not None
    rejected = rules.after_move(change, sides, 1, T0 + seconds(2), CLOCK)
    assert [e["type"] for e in rejected.events] == ["move", "draw_rejected"]
    assert rejected.events[1]["by"] == "black"
    assert rejected.after.options["draw"]["offer_by"] is None
    assert rejected.after.seq == game.seq + 2


def test_only_the_recipient_accepts_on_their_turn_and_no_one_scores_R5_R6() -> None:
    r, game = playing()
    with pytest.raises(RoomError) as refused:
        rules.accept_draw(game, 1)
    assert refused.value.code == "no_offer"
    game = rules.offer_draw(game, 0).after
    with pytest.raises(RoomError) as refused:
        rules.accept_draw(game, 0)
    assert refused.value.code == "no_offer"  # one's own offer
    with pytest.raises(RoomError) as refused:
        rules.accept_draw(game, 1)
    assert refused.value.code == "not_your_turn"
    game = moved(game, "b1c3", T0 + seconds(1), r.sides or [])
    agreed = scored(rules.accept_draw(game, 1), r.sides)
    assert agreed.after.result is not None
    assert agreed.after.result["reason"] == "agreement"
    assert agreed.award is None
    assert agreed.after.points_awarded == 0


# ---------------------------------------------------------------------- R6: scoring


def test_a_resignation_scores_50_for_the_winner_only_R6() -> None:
    r, game = playing("janggi")
    change = scored(rules_of.resign(game, 1), r.sides)  # Bob (Han) resigns
    assert change.award is not None
    assert (change.award.player_id, change.award.kind, change.award.points) == (ALICE, "online", 50)
    end = [e for e in change.events if e["type"] == "end"]
    assert end[0]["points_awarded"] == 50


def test_a_pair_past_its_daily_limit_plays_for_no_points_R6() -> None:
    """Against farming: the fourth game of the same two players in 24 hours scores nothing,
    and says so from its start."""
    assert unscored_reason(2, SCORED_GAMES_PER_PAIR) is None
    assert unscored_reason(3, SCORED_GAMES_PER_PAIR) == "pair_limit"
    r = room("xiangqi", sides=[ALICE, BOB], game_id="g_1")
    game = rules.new_game(
        r, GameStart("g_1", None), T0, CLOCK, ttl_seconds=3600, unscored="pair_limit"
    )
    assert game.options["unscored"] == "pair_limit"
    change = scored(rules_of.resign(game, 1), r.sides)  # Bob resigns: Alice wins, for nothing
    assert change.after.result is not None
    assert change.after.result["winner"] == "red"
    assert change.award is None
    assert change.after.points_awarded == 0


def test_scoring_leaves_a_change_without_winner_alone_R6() -> None:
    r, game = playing()
    change = Change(game, game, [])
    assert scored(change, r.sides) is change


# ---------------------------------------------------------------------- R7: away, presence


def test_both_away_pauses_the_turn_one_back_resumes_it_R7() -> None:
    r, game = playing()
    assert rules.presence(game, rules.both_away(r), r.sides, T0 + seconds(1)) is None
    gone = away(r, ALICE, BOB)
    assert rules.both_away(gone)
    paused = rules.presence(game, True, r.sides, T0 + seconds(10))
    assert paused is not None
    assert [e["type"] for e in paused.events] == ["paused"]
    resumed = rules.presence(paused.after, False, r.sides, T0 + seconds(40))
    assert resumed is not None
    assert [e["type"] for e in resumed.events] == ["resumed"]
    clock = resumed.after.options["clock"]
    assert clock["away_budget"] == 90
    assert parse_iso(clock["deadline"]) == T0 + seconds(120)


def test_a_wait_that_spends_the_budget_ends_the_game_interrupted_without_points_R7() -> None:
    r, game = playing()
    paused = rules.presence(game, True, r.sides, T0 + seconds(10))
    assert paused is not None
    assert rules.overdue(paused.after, r.sides, T0 + seconds(129)) is None
    ended = rules.overdue(paused.after, r.sides, T0 + seconds(130))
    assert ended is not None
    assert ended.after.result is not None
    assert ended.after.result["reason"] == "interrupted"
    assert ended.after.result["winner"] is None
    assert ended.award is None
    assert ended.after.options["clock"]["away_budget"] == 0


def test_one_player_away_is_not_both_away_R7() -> None:
    r, _ = playing()
    assert not rules.both_away(away(r, ALICE))
    assert rules.both_away(away(r, ALICE, BOB))


def test_a_seat_is_held_by_one_connection_and_freed_only_by_it_R7() -> None:
    r = away(room(), ALICE)
    held = attached(r, ALICE, "phone/c2", take=False, instance_id="i9")
    assert held is not None
    seat = held.seats[0]
    assert (seat["device"], seat["connected"], seat["instance"]) == ("phone/c2", True, "i9")
    # Another device waits for "Continue on this device"; the same device takes it back.
    assert attached(held, ALICE, "laptop/c3", take=False, instance_id="i9") is None
    moved_seat = attached(held, ALICE, "laptop/c3", take=True, instance_id="i9")
    assert moved_seat is not None
    assert moved_seat.seats[0]["device"] == "laptop/c3"
    assert attached(held, ALICE, "phone/c4", take=False, instance_id="i9") is not None
    # The same socket saying hello again as another device keeps the seat; its close frees it.
    renamed = attached(held, ALICE, "tablet/c2", take=False, instance_id="i9")
    assert renamed is not None
    assert renamed.seats[0]["device"] == "tablet/c2"
    gone = detached(renamed, ALICE, "phone/c2")
    assert gone is not None
    assert not gone.seats[0]["connected"]
    # Only the holding connection's close frees the seat.
    assert detached(held, ALICE, "laptop/c3") is None
    freed = detached(held, ALICE, "phone/c2")
    assert freed is not None
    assert not freed.seats[0]["connected"]


def test_seats_of_a_dead_instance_are_no_longer_connected_R7() -> None:
    cleared = without_instances(room(), {"i1"})
    assert cleared is not None
    assert [s["connected"] for s in cleared.seats] == [False, True]
    assert without_instances(room(), {"i7"}) is None


# ---------------------------------------------------------------------- R1, R8: seats


def test_a_third_player_finds_the_room_full_and_the_last_one_out_closes_it_R1_R8() -> None:
    with pytest.raises(RoomError) as refused:
        seated(room(), "p_eve")
    assert refused.value.code == "room_full"
    assert seated(room(), ALICE) is None
    one_left = vacated(room(password="tiger7", open_password="tiger7"), ALICE)
    assert one_left is not None
    assert one_left.is_open
    assert [s["player"] for s in one_left.seats] == [BOB]
    empty = vacated(one_left, BOB)
    assert empty is not None
    assert not empty.is_open
    assert empty.open_password is None


# ---------------------------------------------------------------------- R4, Z4: news outages


def test_outages_count_once_where_they_overlap_and_only_within_the_turn() -> None:
    outages = [
        (T0 - seconds(30), T0 + seconds(5)),  # began before the turn
        (T0 + seconds(3), T0 + seconds(8)),  # overlaps the first
        (T0 + seconds(20), None),  # still going on
    ]
    assert clocks.overlap_seconds(outages, T0, T0 + seconds(25)) == 8 + 5


def news(*outages: tuple[float, float | None], checked: float | None = 1000) -> rules.NewsWatch:
    spans = tuple((T0 + seconds(a), T0 + seconds(b) if b is not None else None) for a, b in outages)
    return rules.NewsWatch(spans, T0 + seconds(checked) if checked is not None else None)


def test_no_flag_while_the_news_of_the_move_cannot_cross_R4_Z4() -> None:
    r, game = playing()
    late = T0 + seconds(95)
    assert rules.overdue(game, r.sides, late, news((10, None))) is None  # outage going on
    flagged = rules.overdue(game, r.sides, late, news((10, None)), sure=False)
    assert flagged is not None
    assert flagged.after.ongoing  # the outage so far, added
    assert parse_iso(flagged.after.options["clock"]["deadline"]) == T0 + seconds(175)


def test_an_outage_over_adds_its_time_to_the_deadline_once_R4_Z4() -> None:
    r, game = playing()
    credited = rules.overdue(game, r.sides, T0 + seconds(95), news((10, 40)))
    assert credited is not None
    assert credited.after.ongoing
    assert [e["type"] for e in credited.events] == ["outage"]
    assert credited.events[0]["seconds"] == 30
    clock = credited.after.options["clock"]
    assert parse_iso(clock["deadline"]) == T0 + seconds(120)
    # Once added, the same outage adds nothing more: at the new deadline the clock flags.
    later = credited.after
    assert rules.overdue(later, r.sides, T0 + seconds(110), news((10, 40))) is None
    flagged = rules.overdue(later, r.sides, T0 + seconds(120), news((10, 40)))
    assert flagged is not None
    assert flagged.after.result is not None
    assert flagged.after.result["reason"] == "timeout"
    # A new turn starts with no credit.
    change = rules_of.play_move(later, 0, "b1c3", 0)
    assert change is not None
    next_turn = rules.after_move(change, r.sides, 0, T0 + seconds(100), CLOCK).after
    assert "news_credit" not in next_turn.options["clock"]


def test_the_clock_flags_only_once_both_instances_saw_news_cross_after_the_deadline_R4() -> None:
    r, game = playing()
    assert rules.overdue(game, r.sides, T0 + seconds(91), news(checked=89)) is None
    assert rules.overdue(game, r.sides, T0 + seconds(91), news(checked=None)) is None
    flagged = rules.overdue(game, r.sides, T0 + seconds(91), news(checked=90.5))
    assert flagged is not None
    assert flagged.after.result is not None
    # A player acting after the deadline has seen the move: nothing to wait for.
    assert rules.overdue(game, r.sides, T0 + seconds(91), news(checked=89), sure=False)


def test_the_time_a_dead_instance_kept_a_turn_unshown_is_added_once_R4_Z4() -> None:
    """The instance holding one seat died (its last word at 30 s, buried at
    60 s), after a Redis outage (10 s to 40 s) already added to the deadline: only what the
    outage did not cover is added, and it stays counted once the dead instance is forgotten."""
    r, game = playing()
    credited = rules.overdue(game, r.sides, T0 + seconds(95), news((10, 40)))
    assert credited is not None
    lost = rules.instance_lost(credited.after, T0 + seconds(30), T0 + seconds(60), news((10, 40)))
    assert lost is not None
    assert lost.after.ongoing
    assert [e["type"] for e in lost.events] == ["outage"]
    assert lost.events[0]["seconds"] == 20
    clock = lost.after.options["clock"]
    assert parse_iso(clock["deadline"]) == T0 + seconds(140)
    # Buried: the dead instance says nothing any more, the span its death kept counts still.
    later = lost.after
    assert rules.instance_lost(later, T0 + seconds(30), T0 + seconds(60), news((10, 40))) is None
    assert rules.overdue(later, r.sides, T0 + seconds(139), news((10, 40))) is None
    flagged = rules.overdue(later, r.sides, T0 + seconds(140), news((10, 40)))
    assert flagged is not None
    assert flagged.after.result is not None
    assert flagged.after.result["reason"] == "timeout"
    # Time before the turn began is not this turn's; a new turn starts with nothing kept.
    assert rules.instance_lost(game, T0 - seconds(50), T0, None) is None
    change = rules_of.play_move(later, 0, "b1c3", 0)
    assert change is not None
    next_turn = rules.after_move(change, r.sides, 0, T0 + seconds(100), CLOCK).after
    assert "news_lost" not in next_turn.options["clock"]
