"""After a janggi or jieqi puzzle, "Analyse" opens it in the review (SPEC B9, B3, Z2), as a
xiangqi puzzle does (tests/test_puzzles.py): a janggi puzzle from its FEN, which is no setup's
start; a jieqi puzzle from the solver's view of its game (the captures it knew and did not
know), with the line's reveals, and never the arrangement. The review's state, positions,
record and engine analysis all work on it, and every analysis job is the solver's view.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chuhan.rules import make_board
from chuhan.rules.jieqi import JieqiBoard
from chuhan.server.puzzles.catalog import read_puzzles
from chuhan.server.rules_config import PuzzleSettings
from test_review_api import AnalysingAI
from test_server_support import server

pytestmark = pytest.mark.timeout(120)
FIXTURES = Path(__file__).parent / "data" / "puzzles"
JANGGI = next(p for p in read_puzzles(FIXTURES) if p.id == "janggi-f8950831aa")  # mate in 2


def solve_and_open(client: TestClient, variant: str, puzzle_id: str, line: list[str]) -> str:
    """Solve the puzzle by its line, ask for its analysis; returns the review's game id."""
    begun = client.post("/api/puzzles/attempts", json={"variant": variant, "puzzle": puzzle_id})
    assert begun.status_code == 201, begun.text
    attempt = begun.json()
    for ply in range(0, len(line), 2):
        body = {"ply": ply, "move": line[ply]}
        moved = client.post(f"/api/puzzles/attempts/{attempt['id']}/moves", json=body)
        assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == "solved"
    opened = client.post(f"/api/puzzles/attempts/{attempt['id']}/analysis")
    assert opened.status_code == 201, opened.text
    answer = opened.json()
    assert answer["review"] == f"/review/game/{answer['game']}"
    return str(answer["game"])


def analysed(client: TestClient, game_id: str) -> dict[str, Any]:
    started = client.post(f"/api/games/{game_id}/analysis")
    assert started.status_code == 202, started.text
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{game_id}/analysis").json()
        if answer["status"] == "done":
            return dict(answer)
        assert answer["status"] != "failed", answer
        time.sleep(0.05)
    raise AssertionError("the analysis did not finish")


def test_a_janggi_puzzle_opens_in_the_review_from_its_fen_B9(tmp_path: Path) -> None:
    assert make_board("janggi", JANGGI.fen).setup is None  # type: ignore[attr-defined]
    ai = AnalysingAI()
    settings = PuzzleSettings(data_dir=FIXTURES)
    with server(tmp_path, ai=ai, analysis_nodes=300, puzzles=settings) as (client, _, _):
        game_id = solve_and_open(client, "janggi", JANGGI.id, JANGGI.moves)
        state = client.get(f"/api/archive/games/{game_id}").json()
        assert state["variant"] == "janggi"
        assert state["moves"] == JANGGI.moves
        assert state["start_fen"] == JANGGI.fen
        after = make_board("janggi", JANGGI.fen)
        after.push_many(JANGGI.moves)
        assert state["fen"] == after.fen()
        assert after.outcome() is not None  # mated
        positions = client.get(f"/api/games/{game_id}/positions").json()["positions"]
        assert positions[0]["fen"] == JANGGI.fen
        assert positions[-1]["fen"] == after.fen()
        assert positions[-1]["in_check"]
        record = client.get(f"/api/games/{game_id}/record", params={"notation": "korean"})
        assert record.status_code == 200
        assert JANGGI.fen in record.text
        # Its record imports again (a janggi record from a FEN is kept from that FEN, N4).
        again = client.post("/api/records", content=record.text.encode())
        assert again.status_code == 201, again.text
        assert again.json()["start_fen"] == JANGGI.fen
        assert again.json()["fen"] == state["fen"]
        assert again.json()["moves"] == JANGGI.moves
        plies = analysed(client, game_id)["plies"]
        assert [p["ply"] for p in plies] == [0, 1, 2, 3]
        assert plies[0]["mate"] == 2
        assert plies[-1]["mate"] == 0  # Cho mates in 2, then mated
        assert all(job.fen == JANGGI.fen for job in ai.jobs if job.kind == "analysis")


def jieqi_puzzle() -> tuple[dict[str, Any], JieqiBoard]:
    """A jieqi puzzle cut from a seeded game, Red to solve: before it, Red took a Black piece
    face down (Red knows what it was) and Black took a Red one face down (Red does not); its
    line turns a face-down piece of each side up. Returns the puzzle and the game's full
    board at the puzzle's position (the secret the server never has)."""
    for seed in range(200):
        full = make_board("jieqi", seed=seed)
        assert isinstance(full, JieqiBoard)
        rng = random.Random(seed)
        for _ in range(30):
            if full.outcome() is not None:
                break
            full.push(rng.choice(sorted(full.legal_move_texts())))
        if full.outcome() is not None or full.turn != 0:
            continue
        captured = full.view("red")["captured"]
        if "?" not in captured["red"] or not any(c != "?" for c in captured["black"]):
            continue
        line, reveals, board = [], [], full.copy()
        assert isinstance(board, JieqiBoard)
        for _ in range(3):
            downs = [
                m for m in board.legal_move_texts() if board.needs_reveal(board.parse_move(m).code)
            ]
            if not downs or board.outcome() is not None:
                break
            move = sorted(downs)[0]
            board.push(move)
            line.append(move)
            reveals.append(board.view("all")["moves"][-1]["reveal"])
        if len(line) != 3 or board.outcome() is not None:
            continue
        fen = full.fen()
        puzzle = {
            "id": "jieqi-" + hashlib.sha1(f"{fen} {' '.join(line)}".encode()).hexdigest()[:10],
            "variant": "jieqi",
            "fen": fen,
            "moves": line,
            "themes": ["material"],
            "rating": 1500,
            "source": {"kind": "chuhan-selfplay", "game": f"test/{seed}", "ply": full.ply},
            "verify": {"engine": "test", "nodes": 0, "best": None, "second": None},
            "view": full.view("red"),
            "reveals": reveals,
        }
        return puzzle, full
    raise AssertionError("no seed gave such a game")


def test_a_jieqi_puzzle_opens_in_the_review_from_the_solvers_view_only_B9_Z2(
    tmp_path: Path,
) -> None:
    puzzle, full = jieqi_puzzle()
    folder = tmp_path / "puzzles"
    folder.mkdir()
    (folder / "jieqi.jsonl").write_text(json.dumps(puzzle) + "\n")
    secret_text = full.reveal()[0]
    ai = AnalysingAI()
    settings = PuzzleSettings(data_dir=folder)
    with server(tmp_path, ai=ai, analysis_nodes=200, puzzles=settings) as (client, _, _):
        game_id = solve_and_open(client, "jieqi", puzzle["id"], puzzle["moves"])
        state = client.get(f"/api/archive/games/{game_id}").json()
        assert state["variant"] == "jieqi"
        assert state["moves"] == puzzle["moves"]
        assert state["start_fen"] == puzzle["fen"]
        solver = JieqiBoard.from_view(puzzle["view"])
        for move, reveal in zip(puzzle["moves"], puzzle["reveals"], strict=True):
            solver.push(move, reveal=reveal)
        assert state["fen"] == solver.fen()  # the line's reveals shown face up
        assert [r["reveal"] for r in state["records"][-3:]] == puzzle["reveals"]
        # What Red knew: the Black piece it took, and "?" for its own piece Black took.
        assert state["captured"] == solver.view("red")["captured"]
        assert "?" in state["captured"]["red"]
        for key in ("arrangement", "salt", "hidden"):
            assert key not in state
        positions = client.get(f"/api/games/{game_id}/positions").json()["positions"]
        assert positions[0]["fen"] == puzzle["fen"]
        assert positions[-1]["fen"] == solver.fen()
        record = client.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200
        assert "Arrangement" not in record.text
        answers = json.dumps([state, positions, record.text])
        assert secret_text not in answers
        plies = analysed(client, game_id)["plies"]
        assert [p["ply"] for p in plies] == [0, 1, 2, 3]
        jobs = [job for job in ai.jobs if job.kind == "analysis"]
        assert jobs
        for job in jobs:  # every position as the solver knew it (Z2)
            assert job.view is not None
            assert job.view["viewer"] == "red"
            assert not {"arrangement", "salt", "hidden"} & set(job.view)
