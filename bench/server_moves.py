"""CPU cost of one acknowledged move through the game WebSocket, on SQLite and PostgreSQL.

Plays the same 60-move xiangqi game in a local game (no AI) through the real app, and prints
the process CPU time per acknowledged move as a ratio to the anchor measured in the same run:
the rules alone pushing the same moves. PostgreSQL is used when it answers at
``CHUHAN_TEST_POSTGRES_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``).

    .venv/bin/python bench/server_moves.py
"""

from __future__ import annotations

import os
import random
import tempfile
import time
import uuid
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from chuhan.rules import make_board
from chuhan.server import Settings, create_app

POSTGRES_URL = os.environ.get(
    "CHUHAN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def random_game(length: int = 60, seed: int = 3) -> list[str]:
    board = make_board("xiangqi")
    rng = random.Random(seed)
    moves: list[str] = []
    while len(moves) < length:
        move = rng.choice(sorted(board.legal_move_texts()))
        board.push(move)
        if board.outcome() is not None:
            board.pop()
            continue
        moves.append(move)
    return moves


def rules_seconds_per_move(moves: list[str], rounds: int = 20) -> float:
    started = time.process_time()
    for _ in range(rounds):
        board = make_board("xiangqi")
        for move in moves:
            board.push(move)
    return (time.process_time() - started) / (rounds * len(moves))


def server_seconds_per_move(moves: list[str], url: str, schema: str | None) -> float:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), database_url=url, db_schema=schema)
        with TestClient(create_app(settings)) as client:
            client.get("/api/me")  # the first visit: the player identity (SPEC Z6)
            game = client.post("/api/games", json={"kind": "local", "variant": "xiangqi"}).json()
            with client.websocket_connect(f"/ws/games/{game['id']}") as ws:
                ws.send_json({"id": "h", "type": "hello", "last_seq": None})
                ws.receive_json()
                started = time.process_time()
                for ply, move in enumerate(moves):
                    ws.send_json({"id": f"m{ply}", "type": "move", "ply": ply, "move": move})
                    while True:
                        message = ws.receive_json()
                        if message.get("reply_to") == f"m{ply}":
                            assert message["type"] == "ack", message
                            break
                return (time.process_time() - started) / len(moves)


def main() -> None:
    moves = random_game()
    anchor = rules_seconds_per_move(moves)
    print(f"anchor: the rules push one move in {anchor * 1e6:.0f} µs of CPU")
    with tempfile.TemporaryDirectory() as folder:
        sqlite = server_seconds_per_move(moves, f"sqlite:///{folder}/bench.sqlite3", None)
    print(f"sqlite:     {sqlite * 1e3:.1f} ms CPU per acknowledged move = {sqlite / anchor:.0f}x")
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    engine = create_engine(POSTGRES_URL)
    try:
        with engine.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # no PostgreSQL here: the SQLite figure stands alone
        print(f"postgresql: not measured ({type(exc).__name__})")
        return
    try:
        postgres = server_seconds_per_move(moves, POSTGRES_URL, schema)
        print(
            f"postgresql: {postgres * 1e3:.1f} ms CPU per acknowledged move = "
            f"{postgres / anchor:.0f}x"
        )
    finally:
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    main()
