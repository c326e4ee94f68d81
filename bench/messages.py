"""Bytes per move message and stored bytes per game: events that carry the change against
events that carry a snapshot, measured on the same games in the same run.

For an online game (clock and draw options, as in a room) of 200 plies in xiangqi and in
jieqi, red's view:

- the ``move`` message at ply 10 and ply 200 as the socket sends it now (the change, compact
  JSON) and as it was sent before (the event with the viewer's whole state);
- the stored bytes of the whole game in a real SQLite database through the real Store: the
  game row and its log, once with change events (now) and once with the same events each
  carrying the old format's snapshot of the game.

Goals: a move message under 1 KB at any ply; a 200-ply game under 40 KB in the database.

    .venv/bin/python bench/messages.py
"""

from __future__ import annotations

import json
import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text

from chuhan.rules import make_board
from chuhan.server.db.store import Store
from chuhan.server.games import changes as rules_of
from chuhan.server.games import views
from chuhan.server.hub.local import News
from chuhan.server.protocol.messages import encode
from chuhan.server.records import GameRecord, RoomRecord
from chuhan.server.rooms import rules
from chuhan.server.rules_config import ClockRules

PLIES = 200
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CLOCK = ClockRules()
SNAPSHOT_FIELDS = ("moves", "status", "result", "practice", "points_awarded")


def long_game(variant: str, plies: int = PLIES) -> tuple[list[str], int]:
    """Random legal moves that keep a game going for ``plies``, and the seed that dealt the
    jieqi board (seeds tried in order)."""
    for seed in range(1000):
        board = make_board(variant, seed=seed) if variant == "jieqi" else make_board(variant)
        rng = random.Random(seed)
        moves: list[str] = []
        while len(moves) < plies and board.outcome() is None:
            move = rng.choice(sorted(board.legal_move_texts()))
            board.push(move)
            moves.append(move)
        if len(moves) == plies and board.outcome() is None:
            return moves, seed
    raise RuntimeError("no long game found")


def online_game(variant: str) -> GameRecord:
    room = RoomRecord(
        id="r_bench",
        invite="i",
        password=None,
        open_password=None,
        variant=variant,
        options={},
        status="open",
        seats=[],
        sides=["p_red", "p_black"],
        setup=None,
        game_id="g_bench",
        version=1,
        created_at=NOW,
        updated_at=NOW,
    )
    return rules.new_game(room, rules.GameStart("g_bench", {}), NOW, CLOCK, ttl_seconds=86400)


def with_secret(game: GameRecord, variant: str, seed: int) -> GameRecord:
    """The game dealt like ``long_game``'s board for ``seed`` (jieqi)."""
    if variant != "jieqi":
        return game
    board = make_board("jieqi", seed=seed)
    arrangement, salt = board.reveal()  # type: ignore[attr-defined]
    return GameRecord(**{**game.__dict__, "secret": {"arrangement": arrangement, "salt": salt}})


def old_message(at: GameRecord, payload: dict[str, Any]) -> str:
    """The move event as it was sent before: its fields and red's whole state."""
    event = {**payload, "seq": at.seq, "state": views.state_for(at, 0)}
    return json.dumps(event, ensure_ascii=False)


def play(variant: str) -> tuple[list[GameRecord], list[dict[str, Any]], list[str]]:
    """The game after each move, each move's logged events, and the moves."""
    moves, seed = long_game(variant)
    game = with_secret(online_game(variant), variant, seed)
    games, changes = [game], []
    for move in moves:
        change = rules_of.play_move(game, game.ply, move, rules_of.turn_of(game))
        assert change is not None
        after = rules.after_move(change, ["p_red", "p_black"], rules_of.turn_of(game), NOW, CLOCK)
        game = after.after
        games.append(game)
        changes.append({"after": game, "events": after.events})
    return games, changes, moves


def stored_bytes(game: GameRecord, changes: list[dict[str, Any]], snapshots: bool) -> int:
    """Bytes of the game row and its log in a real SQLite database (their column values)."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        store.migrate()
        first = online_game(game.variant)
        first = GameRecord(**{**first.__dict__, "secret": game.secret})
        start = rules_of.event("start")
        if snapshots:
            start["snapshot"] = snapshot(first)
        store.insert_game(first, [start])
        before = first
        for change in changes:
            events = [dict(e) for e in change["events"]]
            if snapshots:
                for event in events:
                    event["snapshot"] = snapshot(change["after"])
            store.commit_change(before, change["after"], events)
            before = change["after"]
        with store.engine.connect() as conn:
            log = conn.execute(
                text(
                    "SELECT sum(length(CAST(payload AS BLOB)) + length(game_id) + length(type)"
                    " + 8 + length(created_at)) FROM game_events"
                )
            ).scalar_one()
            row = conn.execute(
                text(
                    "SELECT length(CAST(moves AS BLOB)) + length(CAST(options AS BLOB))"
                    " + coalesce(length(CAST(secret AS BLOB)), 0) + length(start_fen)"
                    " + coalesce(length(CAST(result AS BLOB)), 0) + 150 FROM games"
                )
            ).scalar_one()
        store.dispose()
        return int(log) + int(row)


def snapshot(game: GameRecord) -> dict[str, Any]:
    return {name: getattr(game, name) for name in SNAPSHOT_FIELDS}


def main() -> None:
    print(f"online game of {PLIES} plies, red's view; old = whole state in every event")
    print(f"{'variant':<9}{'measure':<26}{'old B':>9}{'new B':>9}{'new/old':>9}")
    for variant in ("xiangqi", "jieqi"):
        games, changes, _ = play(variant)
        for ply in (10, PLIES):
            change = changes[ply - 1]
            move_payload = change["events"][0]
            at = games[ply]
            news = News.of(change["after"], change["events"])
            sent = views.render_events(change["after"], list(news.events), 0)[0]
            assert sent["type"] == "move"
            new = len(encode(sent).encode())
            old = len(old_message(at, move_payload).encode())
            print(
                f"{variant:<9}{f'move message at ply {ply}':<26}{old:>9}{new:>9}{new / old:>9.3f}"
            )
        old_db = stored_bytes(games[-1], changes, snapshots=True)
        new_db = stored_bytes(games[-1], changes, snapshots=False)
        label = f"stored, {PLIES}-ply game"
        print(f"{variant:<9}{label:<26}{old_db:>9}{new_db:>9}{new_db / old_db:>9.3f}")


if __name__ == "__main__":
    main()
