"""The one per-viewer projection (SPEC Z2): every byte a player receives about a game — the
game and room sockets, the HTTP game answers, the room and the profile — is built here.

In jieqi a face-down identity (or a captured face-down piece) reaches only a player entitled
to it (Q5), and the arrangement and its salt only once the game is over (Q7).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ...rules import Board
from ...rules.jieqi import JieqiBoard
from ..protocol.messages import state_event
from ..records import (
    GameRecord,
    PlayedGame,
    Player,
    PlayerRating,
    RoomRecord,
    StoredEvent,
    utcnow,
)
from .changes import NOTATIONS, ai_to_move, board_of, side_names


def viewer_of(game: GameRecord) -> int | None:
    """The side the owner plays (None in a local game: both sides on one device)."""
    return game.human_side if game.kind == "ai" else None


def viewer_name(game: GameRecord) -> str | None:
    """The name of the side the owner plays ("red", "han"…; None in a local game)."""
    side = viewer_of(game)
    return None if side is None else side_names(game.variant)[side]


# ---------------------------------------------------------------------- game states


# The state's append-only lists: a move event carries one new entry of each, not the list.
HISTORY = ("moves", "notation", "records")
# Events that carry a full state: rare ones that change much.
FULL_STATE_EVENTS = ("start", "undo", "end", "outage")


def _knower(game: GameRecord, viewer: int | None, board: Board) -> int | None:
    """Whose knowledge a jieqi state shows: the viewer's; on one device, the side to move's
    (both people see the screen); in a game kept from one player's view without the secret
    (a puzzle's, B9), that player's."""
    if isinstance(board, JieqiBoard) and not board.has_secret and board.viewer is not None:
        return board.viewer
    return board.turn if viewer is None and game.variant == "jieqi" else viewer


def _jieqi_view(game: GameRecord, board: Board, viewer: int | None) -> dict[str, Any] | None:
    """What ``viewer`` knows of a jieqi game (None for the other variants)."""
    knower = _knower(game, viewer, board)
    if game.variant != "jieqi" or knower is None:
        return None
    # Z2: the stored status decides, not the board. The move that ends a game is logged
    # before its `end` event; that move's state must not reveal the arrangement yet.
    view: dict[str, Any] = board.view(knower, game_over=not game.ongoing)  # type: ignore[attr-defined]
    return view


def known_board(game: GameRecord, viewer: int | None) -> Board:
    """The game's board as ``viewer`` may know it, to write a record from: while a jieqi
    game is on, a board rebuilt from that player's view (no secret, Z2); on one device, the
    side to move's."""
    board = board_of(game)
    view = _jieqi_view(game, board, viewer) if game.ongoing else None
    if view is None:
        return board
    return JieqiBoard.from_view(view)


def _position(
    game: GameRecord, viewer: int | None, board: Board, view: dict[str, Any] | None
) -> dict[str, Any]:
    """The state's fields that an event may change, each whole: everything but the game's
    fixed facts and its append-only lists (HISTORY)."""
    names = side_names(game.variant)
    outcome = board.outcome()
    # The legal moves only for a viewer who may play them (the longest work of a state).
    viewer_moves = game.ongoing and outcome is None and (viewer is None or viewer == board.turn)
    position: dict[str, Any] = {
        "options": public_options(game),
        "fen": board.fen(),
        "ply": game.ply,
        "turn": names[board.turn],
        "in_check": board.is_check(),
        "last_move": game.moves[-1] if game.moves else None,
        "legal_moves": list(board.legal_move_texts()) if viewer_moves else [],
        "status": game.status,
        "result": game.result,
        "practice": game.practice,
        "points_awarded": game.points_awarded,
        "thinking": ai_to_move(game),
        "seq": game.seq,
        "captured": view["captured"] if view else {names[0]: [], names[1]: []},
    }
    if outcome is not None and outcome.ruling is not None:
        position["ruling"] = outcome.ruling  # a repetition judged: rule, evidence (E1, #18)
    return position


def captured_known(board: JieqiBoard, knower: int) -> dict[str, list[str]]:
    """Each colour's captured pieces as ``knower`` knows them ("?" for one of its own taken
    face down, Q5): a jieqi puzzle's position as its solver sees it (B9)."""
    return dict(board.view(knower)["captured"])


def state_for(game: GameRecord, viewer: int | None, board: Board | None = None) -> dict[str, Any]:
    """The game as ``viewer`` (side number, or None in a local game) may see it (SPEC Z2)."""
    if board is None:
        board = board_of(game)
    names = side_names(game.variant)
    view = _jieqi_view(game, board, viewer)
    state: dict[str, Any] = {
        "id": game.id,
        "kind": game.kind,
        "variant": game.variant,
        "level": game.level,
        "you": None if viewer is None else names[viewer],
        "sides": list(names),
        "start_fen": game.start_fen,
        "created_at": iso_time(game.created_at),
        "expires_at": iso_time(game.expires_at),
        "commitment": None,
        **_position(game, viewer, board, view),
        "moves": list(game.moves),
        "notation": NOTATIONS.written(game),
    }
    if view is not None:
        for key in ("commitment", "arrangement", "salt"):
            if key in view:
                state[key] = view[key]
        state["records"] = view["moves"]
    return state


def public_options(game: GameRecord) -> dict[str, Any]:
    options = dict(game.options)
    options.setdefault("setup", None)
    options.setdefault("bikjang", "off")
    if game.variant != "janggi":
        options.setdefault("rules", "casual")
    return options


def iso_time(moment: datetime) -> str:
    """A stored moment as the API writes it: ISO 8601 in UTC with a ``Z``."""
    return moment.isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------------- events


def render_events(
    game: GameRecord, events: Sequence[StoredEvent], viewer: int | None
) -> list[dict[str, Any]]:
    """Logged events as ``viewer`` receives them (SPEC Z2, P5): ``events`` are the game's
    last ones, in order, ending at ``game.seq`` (the game as committed after them).

    A ``move`` and every other frequent event carry only what changed (:func:`change`);
    ``start``, ``undo``, ``end`` and ``outage`` carry the full state, and so do events logged
    in the old format (each with a ``snapshot`` of the game). When the log does not lead to
    the game, the answer is one full ``state`` event instead.
    """
    if not events:
        return []
    moments = _moments(game, events)
    if moments is None:
        return [state_event(game.seq, state_for(game, viewer))]
    return [render(at, stored.payload, viewer) for at, stored in zip(moments, events, strict=True)]


def _moments(game: GameRecord, events: Sequence[StoredEvent]) -> list[GameRecord] | None:
    """The game right after each of ``events``, found by walking the log back from ``game``
    (a move takes its move back, an undo gives back the moves it took, an end reopens the
    game); None when the events do not lead to ``game``."""
    if events[-1].seq != game.seq:
        return None
    moves: list[str] | None = list(game.moves)
    status, result, points = game.status, game.result, game.points_awarded
    moments: list[GameRecord] = []
    for stored in reversed(events):
        payload = stored.payload
        if "snapshot" in payload:  # the old format: the game as it was, whole
            moments.append(replace(game, seq=stored.seq, **payload["snapshot"]))
            moves = None  # what came before it is told by its own snapshot only
            continue
        if moves is None:
            return None
        moments.append(
            replace(
                game,
                seq=stored.seq,
                moves=moves,
                status=status,
                result=result,
                points_awarded=points,
            )
        )
        kind = payload["type"]
        if kind == "move":
            ply = int(payload["ply"])
            if ply != len(moves) - 1 or moves[ply] != payload["move"]:
                return None
            moves = moves[:ply]
        elif kind == "undo":
            if int(payload["ply"]) != len(moves) or "taken" not in payload:
                return None
            moves = [*moves, *payload["taken"]]
        elif kind == "end":
            status, result, points = "ongoing", None, 0
    moments.reverse()
    return moments


def render(at: GameRecord, payload: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One logged event as ``viewer`` receives it, given the game right after it."""
    event = {k: v for k, v in payload.items() if k not in ("snapshot", "taken")}
    event["seq"] = at.seq
    if "snapshot" in payload or payload["type"] in FULL_STATE_EVENTS:
        event["state"] = state_for(at, viewer)
        return event
    return {**event, **change(at, payload, viewer)}


_MOVE_TEXT = re.compile(r"([a-i](?:10|[1-9]))([a-i](?:10|[1-9]))")


def pack_moves(moves: Sequence[str]) -> str | None:
    """Legal moves in short: runs of one origin as ``origin:dest…``, space-separated, in
    order (``"h3:h4h5e3 b3:b4 pass"``); None when a move does not fit this form."""
    groups: list[str] = []
    for move in moves:
        if move == "pass":
            groups.append(move)
            continue
        found = _MOVE_TEXT.fullmatch(move)
        if found is None:
            return None
        origin, target = found.groups()
        if groups and groups[-1].startswith(origin + ":"):
            groups[-1] += target
        else:
            groups.append(f"{origin}:{target}")
    return " ".join(groups)


def change(at: GameRecord, payload: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """What an event changed for ``viewer`` (``web/js/events.js`` applies it): ``set``, the
    state fields it replaces whole, ``legal``, the legal moves (:func:`pack_moves`), and for a
    move the entries it appends to the state's
    lists: ``notation`` (its text in each of the state's notations) and in jieqi ``record``
    (the reveal, and the capture as the viewer may know it, Q5), with ``known`` on one
    device: the captures shown otherwise now that the other side is to move."""
    board = board_of(at)
    view = _jieqi_view(at, board, viewer)
    replaced = _position(at, viewer, board, view)
    del replaced["seq"]  # the event's own
    fields: dict[str, Any] = {"set": replaced}
    legal = pack_moves(replaced["legal_moves"])
    if legal is not None:  # the longest field, written short (events.js unpacks it)
        del replaced["legal_moves"]
        fields["legal"] = legal
    if payload["type"] != "move":
        return fields
    fields["notation"] = NOTATIONS.last(at)
    if view is not None:
        fields["record"] = view["moves"][-1]
        if viewer is None:  # what the mover knew was shown until this move
            shown = board.view(1 - board.turn, game_over=not at.ongoing)["moves"]  # type: ignore[attr-defined]
            fields["known"] = [
                [index, record["captured"]]
                for index, (record, was) in enumerate(zip(view["moves"][:-1], shown, strict=False))
                if record["captured"] != was["captured"]
            ]
    return fields


# ---------------------------------------------------------------------- rooms and profiles


def room_view(
    room: RoomRecord,
    player_id: str,
    names: Mapping[str, Mapping[str, Any]],
    turn_seconds: float,
) -> dict[str, Any]:
    """The room as one of its players sees it (no other player's secrets: ids stay).
    ``names``: each seated player's ``name`` and, in a paired room, ``rating`` in its
    variant (B7: both show before the first move)."""
    seat_index = room.seat_of(player_id)
    sides = side_names(room.variant)
    side = room.side_of(player_id)
    seats = []
    for seat in room.seats:
        their_side = room.side_of(seat["player"])
        seats.append(
            {
                "you": seat["player"] == player_id,
                "name": names.get(seat["player"], {}).get("name"),
                "rating": names.get(seat["player"], {}).get("rating"),
                "ready": seat["ready"],
                "rematch": seat.get("rematch"),  # B4: None, "offered" or "declined"
                "connected": seat["connected"],
                "side": sides[their_side] if their_side is not None else None,
            }
        )
    setup = None
    if room.setup is not None:
        setup = {
            "turn": room.setup["turn"],
            "han": room.setup["han"],
            "deadline": room.setup["deadline"],
            "both_away_since": room.setup.get("both_away_since"),  # waiting (R7)
            "away_budget": room.setup.get("away_budget"),
        }
    return {
        "id": room.id,
        "variant": room.variant,
        "options": room.options,
        # B1: a paired room has neither password nor invite: nothing to share, nobody to join.
        "access": "password" if room.password else "invite" if room.invite else "paired",
        "password": room.password,
        "invite": room.invite,
        "status": room.status,
        "seats": seats,
        "seat": seat_index,
        "you": sides[side] if side is not None else None,
        "setup": setup,
        "game_id": room.game_id,
        "turn_seconds": turn_seconds,
        "now": iso_time(utcnow()),
    }


def profile(
    player: Player,
    recent: list[GameRecord],
    online: list[PlayedGame],
    ratings: Mapping[str, PlayerRating] | None = None,
) -> dict[str, Any]:
    """The player's profile (S1): points apart, with the games behind them, and the rating
    per variant (B2: ``provisional`` is shown with "?"). Never a secret."""
    return {
        "id": player.id,
        "name": player.name,
        "name_chosen": player.name_chosen,  # B7: false while the name is the default one
        "points": {"ai": player.ai_points, "online": player.online_points},
        "ratings": {variant: rating.to_json() for variant, rating in (ratings or {}).items()},
        "games": [
            {
                "id": g.id,
                "kind": g.kind,
                "variant": g.variant,
                "level": g.level,
                "side": viewer_name(g),
                "status": g.status,
                "result": g.result,
                "practice": g.practice,
                "points_awarded": g.points_awarded,
                "created_at": iso_time(g.created_at),
            }
            for g in recent
        ],
        # S1, R6: the online games behind the online points, apart from the AI games.
        "online_games": [online_summary(played) for played in online],
    }


def online_summary(played: PlayedGame) -> dict[str, Any]:
    """One online game as its player sees it in the profile: their side, the opponent's name,
    the result and the points it gave them (R6: 50 to the winner). Never the secret (Z2)."""
    g = played.game
    side = side_names(g.variant)[played.side]
    won = (g.result or {}).get("winner") == side
    return {
        "id": g.id,
        "kind": g.kind,
        "variant": g.variant,
        "side": side,
        "opponent": played.opponent_name,
        "status": g.status,
        "result": g.result,
        "points_awarded": g.points_awarded if won else 0,
        "created_at": iso_time(g.created_at),
    }
