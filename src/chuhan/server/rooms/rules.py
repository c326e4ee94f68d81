"""The rules of a room's games as pure functions (SPEC R3, R4, R5, R7, J3; Z1).

Like :mod:`..games.changes`, nothing here reads the database, the clock or a socket: each function
takes the room or game as read and the moment ``now``, and returns what should be stored
(a new :class:`~..records.RoomRecord`, a :class:`~..records.Change`) or None when nothing
changes, or raises :class:`RoomError`. Randomness (the colour draw, new ids) is passed in,
so a test can say what the coin showed. The room service reads, calls these, and stores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Unpack

from ..games import changes as rules_of
from ..records import (
    Change,
    EventType,
    GameOptions,
    GameRecord,
    JanggiSetups,
    RoomRecord,
    parse_iso,
)
from ..refusal import GameActionError
from ..rules_config import ClockRules
from . import clocks
from .scoring import costs_nothing, scored
from .timecontrols import CONTROLS

DRAW_OFFER_GAP = 10  # SPEC R5: half-moves between one player's offers
JANGGI_DEFAULT_SETUP = "HEHE"  # SPEC R4: what a side that runs out of setup time gets


class RoomError(GameActionError):
    """A room action refused (its HTTP status is its code's, :data:`..protocol.HTTP_ERRORS`)."""


def side_names(variant: str) -> tuple[str, str]:
    return rules_of.side_names(variant)


def both_away(room: RoomRecord) -> bool:
    """R7: True when no seat of the current game's players has a connected device."""
    sides = room.sides or []
    return all(not seat["connected"] for seat in room.seats if seat["player"] in sides)


# ---------------------------------------------------------------------- ready, colours (R3)


def press_ready(
    room: RoomRecord,
    player_id: str,
    now: datetime,
    rules: ClockRules,
    *,
    swap: bool,
    game_id: str,
    expected_game_id: str | None,
) -> RoomRecord | None:
    """R3: ``player_id`` is ready. With both seats ready, the readiness resets, colours are
    drawn (``swap``: the second seat takes side 0) and the game ``game_id`` begins; in janggi
    the setup choice begins instead (R4, J3: Han first, one turn's time).

    None when the room moved on since the player asked (a game or setup started:
    ``expected_game_id`` is the game the player saw). Raises RoomError ``not_found``.
    """
    index = room.seat_of(player_id)
    if index is None:
        raise RoomError("not_found", "you have no seat in this room")
    if room.setup is not None or room.game_id != expected_game_id:
        return None
    seats = [dict(s) for s in room.seats]
    seats[index]["ready"] = True
    if len(seats) < 2 or not all(s["ready"] for s in seats):
        return replace(room, seats=seats)
    players = [s["player"] for s in seats]
    if swap:
        players.reverse()
    return begin(replace(room, seats=seats), players, now, rules, game_id)


def begin(
    room: RoomRecord, players: list[str], now: datetime, rules: ClockRules, game_id: str
) -> RoomRecord:
    """R3, B4: the next game begins between ``players`` (side 0 first): readiness and
    rematch offers reset, and the game ``game_id`` starts; in janggi the setup choice starts
    instead (R4, J3: Han first, one turn's time)."""
    seats = [{**s, "ready": False, "rematch": None} for s in room.seats]
    if room.variant == "janggi":
        setup = {
            "turn": "han",
            "han": None,
            "cho": None,
            "turn_started_at": clocks.iso(now),
            "deadline": clocks.iso(rules.deadline(now, None)),
            "away_budget": rules.away_budget_seconds,
            "both_away_since": None,
        }
        return replace(room, seats=seats, sides=players, setup=setup, game_id=None)
    return replace(room, seats=seats, sides=players, game_id=game_id)


# ---------------------------------------------------------------------- rematch (B4)

REMATCH_ACTIONS = ("offer", "accept", "decline", "cancel")
OFFERED = "offered"  # a seat's ``rematch``: its player offers a rematch
DECLINED = "declined"  # … their offer was declined (they may offer again)


def rematch(
    room: RoomRecord,
    player_id: str,
    action: str,
    now: datetime,
    rules: ClockRules,
    *,
    game_id: str,
    expected_game_id: str | None,
) -> RoomRecord | None:
    """B4: after a game (the service checks that it is over), either of its two players
    offers a rematch; the other accepts or declines it, the offerer may cancel it. An offer
    while the other's offer is open accepts it. On acceptance the game ``game_id`` begins
    with the last game's colours swapped (not drawn, unlike Ready, R3).

    Each seat's ``rematch`` is None, ``offered`` or ``declined`` (what its player sees of
    their own offer). None when the room moved on since the player asked, or when an offer
    is repeated. Raises RoomError ``not_found``, ``no_rematch`` (not the two players of the
    last game: a new opponent presses Ready) or ``no_offer``.
    """
    index = room.seat_of(player_id)
    if index is None:
        raise RoomError("not_found", "you have no seat in this room")
    if room.setup is not None or room.game_id != expected_game_id:
        return None
    players = [s["player"] for s in room.seats]
    if room.sides is None or len(players) < 2 or sorted(players) != sorted(room.sides):
        raise RoomError(
            "no_rematch", "a rematch is between the two players of the last game: press Ready"
        )
    mine, theirs = room.seats[index].get("rematch"), room.seats[1 - index].get("rematch")
    if action == "offer" and theirs == OFFERED:
        action = "accept"
    if action == "accept":
        if theirs != OFFERED:
            raise RoomError("no_offer", "there is no rematch offer to accept")
        return begin(room, list(reversed(room.sides)), now, rules, game_id)
    seats = [dict(s) for s in room.seats]
    if action == "offer":
        if mine == OFFERED:
            return None
        seats[index]["rematch"] = OFFERED
    elif action == "decline":
        if theirs != OFFERED:
            raise RoomError("no_offer", "there is no rematch offer to decline")
        seats[1 - index]["rematch"] = DECLINED
    elif action == "cancel":
        if mine != OFFERED:
            raise RoomError("no_offer", "you have no rematch offer to cancel")
        seats[index]["rematch"] = None
    else:
        raise RoomError("bad_request", f"a rematch action is one of {', '.join(REMATCH_ACTIONS)}")
    return replace(room, seats=seats)


# ---------------------------------------------------------------------- janggi setup (R4, J3)


@dataclass(frozen=True)
class GameStart:
    """The setup choice is over: the room's game to create, with both setups and what is
    left of the shared away budget (or its wait, R7)."""

    game_id: str
    setups: JanggiSetups | None = None  # janggi only
    away: dict[str, Any] | None = None


def choose_setup(
    room: RoomRecord,
    player_id: str | None,
    choice: str,
    now: datetime,
    rules: ClockRules,
    *,
    game_id: str,
    lag_of_cho: float | None = None,
) -> tuple[RoomRecord | None, GameStart | None]:
    """R4, J3: record Han's then Cho's setup choice, each within the turn time.

    ``player_id`` None: the clock acts for the side to choose once its deadline has passed
    (giving it ``choice``, the default setup), or ends the wait of both players away (R7) by
    starting the game with no budget left, so that its clock ends it as interrupted.
    Returns the room to store (None: nothing to do) and the game to create, if any.
    Raises RoomError ``not_now`` or ``not_your_turn``.
    """
    setup = room.setup
    if setup is None or room.sides is None:
        if player_id is None:
            return None, None
        raise RoomError("not_now", "no setup choice is being made")
    turn = setup["turn"]
    side = side_names(room.variant).index(turn)
    if player_id is None:
        moment, what = clocks.due(setup)
        if now < moment:
            return None, None
        if what == "interrupted":
            start = GameStart(
                game_id,
                {
                    "cho": setup["cho"] or JANGGI_DEFAULT_SETUP,
                    "han": setup["han"] or JANGGI_DEFAULT_SETUP,
                },
                {"away_budget": 0.0, "both_away_since": clocks.iso(now)},
            )
            return replace(room, setup=None, game_id=game_id), start
    elif room.sides[side] != player_id:
        raise RoomError("not_your_turn", "it is not your turn to choose a setup")
    setup = {**clocks.resume(setup, now), turn: choice}
    if turn == "han":
        cho_turn = clocks.next_turn(setup, rules, now, lag_of_cho)
        return replace(room, setup={**cho_turn, "turn": "cho"}), None
    away = {"away_budget": setup["away_budget"]} if "away_budget" in setup else None
    start = GameStart(game_id, {"cho": setup["cho"], "han": setup["han"]}, away)
    return replace(room, setup=None, game_id=game_id), start


def setup_presence(room: RoomRecord, now: datetime, rules: ClockRules) -> RoomRecord | None:
    """R7 during the janggi setup choice: it waits like a turn while both are away, on the
    same shared budget (what is left goes on to the game)."""
    setup = room.setup
    if setup is None or room.sides is None:
        return None
    away = both_away(room)
    if away and not setup.get("both_away_since"):
        budget = setup.get("away_budget", rules.away_budget_seconds)
        return replace(room, setup=clocks.pause({**setup, "away_budget": budget}, now))
    if not away and setup.get("both_away_since"):
        return replace(room, setup=clocks.resume(setup, now))
    return None


# ---------------------------------------------------------------------- the game (R3, R4)


def new_game(
    room: RoomRecord,
    start: GameStart,
    now: datetime,
    rules: ClockRules,
    *,
    ttl_seconds: float,
    lag_of_first: float | None = None,
    unscored: str | None = None,
) -> GameRecord:
    """The room's new game (kind ``online``, no owner), its first turn's clock running.
    ``unscored`` names the rule that withholds its points (R6, :mod:`.scoring`), if any."""
    options: GameOptions = {"rules": room.options.get("rules", "casual")}  # E1
    if room.variant == "janggi":
        bikjang = room.options.get("bikjang", "off")
        options = {"bikjang": bikjang}
        if start.setups is not None:  # always: a janggi game starts once both chose (R4)
            options = {"setup": start.setups, "bikjang": bikjang}
    start_fen, secret = rules_of.new_start(room.variant, options)
    names = side_names(room.variant)
    control = CONTROLS.get(room.options.get("clock", ""))  # B7: a game clock, else R4's
    first_clock = clocks.new_clock(rules, now, lag_of_first, control)
    options["clock"] = {**first_clock, **(start.away or {})}
    options["draw"] = {"offer_by": None, "last_offer_ply": {names[0]: None, names[1]: None}}
    if unscored is not None:
        options["unscored"] = unscored
    if room.options.get("paired"):
        options["paired"] = True  # B1, B2: a game made by pairing is rated
    return GameRecord(
        id=start.game_id,
        kind="online",
        variant=room.variant,
        options=options,
        secret=secret,
        start_fen=start_fen,
        created_at=now,
        expires_at=now + timedelta(seconds=ttl_seconds),
        updated_at=now,
    )


def after_move(
    change: Change,
    sides: list[str] | None,
    mover: int,
    now: datetime,
    rules: ClockRules,
    lag_of_next: float | None = None,
) -> Change:
    """A move's change with the room's part: the next turn's clock (R4, B7), the recipient's
    offer rejected by their move (R5), and the winner's points (R6)."""
    names = side_names(change.before.variant)
    events = list(change.events)
    after = change.after
    draw = dict(after.options["draw"])
    if draw["offer_by"] is not None and draw["offer_by"] != names[mover]:
        draw["offer_by"] = None
        rejected = {"type": "draw_rejected", "by": names[mover]}
        events.insert(1, rejected)
    clock = after.options["clock"]
    if after.ongoing and "control" in clock:  # B7: the mover's time charged
        clock = clocks.game_turn(clock, rules, now, lag_of_next, mover=mover, ply=after.ply)
    elif after.ongoing:
        clock = clocks.next_turn(clock, rules, now, lag_of_next)
    after = replace(
        after,
        options={**after.options, "clock": clock, "draw": draw},
        seq=change.before.seq + len(events),
    )
    return scored(Change(change.before, after, events), sides)


@dataclass(frozen=True)
class NewsWatch:
    """What the instances holding the two players' seats say about news crossing between
    them (R4, Z4): their outages, and the moment up to which both have seen news cross
    (None: one of them cannot say). None instead of a watch: the players' sockets are on one
    instance, nothing needs to cross."""

    outages: tuple[clocks.Outage, ...] = ()
    checked_until: datetime | None = None

    @property
    def ongoing(self) -> bool:
        return any(end is None for _, end in self.outages)


def overdue(
    game: GameRecord,
    sides: list[str] | None,
    now: datetime,
    news: NewsWatch | None = None,
    *,
    sure: bool = True,
) -> Change | None:
    """The clock's decision once its moment has passed: the side to move loses on time (R4,
    with the winner's points), or, both players away with the budget spent, the game ends
    interrupted (R7). None before the moment, or for a game that is over.

    ``news``: no turn is flagged for time during which the mover's news could not reach the
    opponent's instance (Z4): that time is added to the deadline first (a change logged as
    ``outage`` that leaves the game going on). With ``sure`` (the clock deciding on its own)
    nothing is flagged while such an outage goes on, nor before both instances have seen
    news cross after the deadline; a player acting on their turn has seen the move, so
    their action (``sure`` False) only adds the outage so far.
    """
    clock = game.options.get("clock")
    if not game.ongoing or clock is None:
        return None
    moment, what = clocks.due(clock)
    if now < moment:
        return None
    if what == "interrupted":
        finished = rules_of._finish(game, game, [], None, "interrupted")
        return replace(finished, after=set_clock(finished.after, {**clock, "away_budget": 0}))
    if news is not None:
        if sure and news.ongoing:
            return None  # decided once the outage is over
        credit = clocks.news_credit(clock, list(news.outages), now)
        if credit > 0.001:
            moved = clocks.credited(clock, credit)
            return with_options(game, "outage", {"seconds": credit}, clock=moved)
        if sure and (news.checked_until is None or news.checked_until < moment):
            return None
    loser = rules_of.turn_of(game)
    if costs_nothing(game, loser):
        return rules_of.abandon(game)  # B1: a paired game never begun by this side
    return scored(rules_of._finish(game, game, [], 1 - loser, "timeout"), sides)


def instance_lost(
    game: GameRecord, since: datetime, now: datetime, news: NewsWatch | None = None
) -> Change | None:
    """R4, R7, Z4: an instance holding one player's seat, the other's
    held elsewhere, died; nothing it committed after ``since`` (the last moment its news was
    seen to cross) may have reached the other instance before ``now``, when the other's
    sockets are made to read the log. The player to move may not have been shown their turn
    all that time: it is charged to no one as a Redis outage is, the span kept with the
    turn's clock (the dead instance's word is forgotten with it) and the time of the turn it
    covered added to the deadline (an ``outage`` event). ``news``: what the instances said of
    their hubs, so that an outage already credited counts once. None: nothing to add."""
    clock = game.options.get("clock")
    if not game.ongoing or clock is None or now <= since:
        return None
    kept = clocks.news_lost(clock, since, now)
    credit = clocks.news_credit(kept, list(news.outages) if news is not None else [], now)
    if credit <= 0.001:
        return None
    return with_options(game, "outage", {"seconds": credit}, clock=clocks.credited(kept, credit))


def chained(first: Change, then: Callable[[GameRecord], Change | None]) -> Change:
    """``first`` (a change that leaves the game going on), then ``then`` on the game after
    it, as one change (their events in order)."""
    second = then(first.after)
    if second is None:
        return first
    return Change(first.before, second.after, [*first.events, *second.events], second.award)


def presence(
    game: GameRecord,
    away: bool,
    sides: list[str] | None,
    now: datetime,
    news: NewsWatch | None = None,
) -> Change | None:
    """R7: with both players away (``away``) the turn waits; one back, it goes on, the wait
    drawn from the shared budget. A clock already overdue decides first."""
    if not game.ongoing:
        return None
    decided = overdue(game, sides, now, news)
    if decided is not None and not decided.after.ongoing:
        return decided

    def wait_or_go(g: GameRecord) -> Change | None:
        clock = g.options["clock"]
        if away and not clock["both_away_since"]:
            return with_options(g, "paused", clock=clocks.pause(clock, now))
        if not away and clock["both_away_since"]:
            return with_options(g, "resumed", clock=clocks.resume(clock, now))
        return None

    if decided is None:
        return wait_or_go(game)
    return chained(decided, wait_or_go)


def clock_after_outage(game: GameRecord, since: datetime, now: datetime) -> Change | None:
    """Z4: the game's clock moved by the time no instance was alive (once per outage)."""
    clock = game.options.get("clock")
    if clock is None or not game.ongoing:
        return None
    moved = clocks.after_outage(clock, since, now)
    if moved is None:
        return None
    down = parse_iso(moved["deadline"]) - parse_iso(clock["deadline"])
    return with_options(game, "outage", {"seconds": down.total_seconds()}, clock=moved)


def setup_instance_lost(room: RoomRecord, since: datetime, now: datetime) -> RoomRecord | None:
    """:func:`instance_lost` for a janggi setup choice (R4, J3: a turn too): the time the
    side to choose may not have been shown their turn is added to its deadline. None:
    nothing to add (or a setup begun before setups recorded their turn's start)."""
    setup = room.setup
    if setup is None or "turn_started_at" not in setup or now <= since:
        return None
    kept = clocks.news_lost(setup, since, now)
    credit = clocks.news_credit(kept, [], now)
    if credit <= 0.001:
        return None
    return replace(room, setup=clocks.credited(kept, credit))


def setup_after_outage(room: RoomRecord, since: datetime, now: datetime) -> RoomRecord | None:
    """Z4: the setup choice's deadline moved by the time no instance was alive."""
    setup = room.setup and clocks.after_outage(room.setup, since, now)
    return replace(room, setup=setup) if setup else None


# ---------------------------------------------------------------------- draw offers (R5)


def offer_draw(game: GameRecord, side: int) -> Change:
    """R5: only on your turn, 10 half-moves after your last offer; the clock runs on.

    Raises RoomError ``not_your_turn``, ``already_offered``, ``offer_pending``, ``too_soon``.
    """
    names = side_names(game.variant)
    draw = game.options["draw"]
    if rules_of.turn_of(game) != side:
        raise RoomError("not_your_turn", "a draw can be offered only on your own turn")
    if draw["offer_by"] == names[side]:
        raise RoomError("already_offered", "your draw offer is still open")
    if draw["offer_by"] is not None:
        raise RoomError("offer_pending", "your opponent offers a draw: accept it or play a move")
    last = draw["last_offer_ply"][names[side]]
    if last is not None and game.ply - last < DRAW_OFFER_GAP:
        wait = DRAW_OFFER_GAP - (game.ply - last)
        raise RoomError(
            "too_soon",
            f"{DRAW_OFFER_GAP} half-moves must pass between your offers; {wait} to go",
        )
    offered = {
        "offer_by": names[side],
        "last_offer_ply": {**draw["last_offer_ply"], names[side]: game.ply},
    }
    return with_options(game, "draw_offered", {"by": names[side]}, draw=offered)


def accept_draw(game: GameRecord, side: int) -> Change:
    """R5: the recipient accepts the open offer on their turn: a draw, no points.

    Raises RoomError ``no_offer`` or ``not_your_turn``."""
    offer_by = game.options["draw"]["offer_by"]
    if offer_by is None or offer_by == side_names(game.variant)[side]:
        raise RoomError("no_offer", "there is no draw offer to accept")
    if rules_of.turn_of(game) != side:
        raise RoomError("not_your_turn", "accept the offer on your turn")
    return rules_of.agree_draw(game)


# ---------------------------------------------------------------------- changes of options


def set_clock(game: GameRecord, clock: dict[str, Any]) -> GameRecord:
    return replace(game, options={**game.options, "clock": clock})


def with_options(
    game: GameRecord,
    kind: EventType,
    fields: dict[str, Any] | None = None,
    **options: Unpack[GameOptions],
) -> Change:
    """A change of the game's room options alone, logged as one ``kind`` event."""
    after = replace(game, options={**game.options, **options}, seq=game.seq + 1)
    event = rules_of.event(kind, **(fields or {}))
    return Change(game, after, [event])
