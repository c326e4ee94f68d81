"""A jieqi move is judged by what its mover could know (A3, Z2): a move that turns a piece face
up is worth the average over what that piece could have been (its side's unknown pool, as the
mover saw it), not what it turned out to be. An unlucky reveal is no mistake; a reveal whose
every likely outcome is bad still is, even when the piece happened to turn up well.

Both positions are Red's first move of a game (the same view whatever the deal), so only the
arrangement differs between a lucky and an unlucky outcome:

- ``b3b10``: the face-down piece on the cannon's point takes the one on b10 and is taken back
  by the a10 piece (it moves as a chariot). Turned up as a chariot that took a soldier, Red is
  a chariot down: bad luck, the move is as good as the engine's own on average.
- ``a1a2``: the piece on the chariot's point steps up and leaves b1 to Black's b8 cannon. Only
  an advisor (on a2 it guards b1) saves it: turned up as an advisor, the move is still a mistake.
"""

from __future__ import annotations

from typing import Any

import pytest

from chuhan.engine.analysis import MISTAKE, evaluate, evaluate_after, judge
from chuhan.rules import make_board
from chuhan.rules.jieqi import JieqiBoard
from test_review_api import AnalysingAI, _analysis_done_after_post, _stranger
from test_server_support import server

pytestmark = pytest.mark.timeout(120)
NODES = 8_000  # the server's default budget per position


def dealt(**letters: str) -> JieqiBoard:
    """The full starting board of a game whose face-down pieces on the named points are the
    given letters (``b3="R"``), each swapped with a piece of that letter elsewhere."""
    full = make_board("jieqi", seed=0)
    assert isinstance(full, JieqiBoard)
    text = full.reveal()[0]
    pieces = dict(item.split("=") for item in text.split())
    for point, letter in letters.items():
        other = next(p for p, piece in pieces.items() if piece == letter and p not in letters)
        pieces[point], pieces[other] = pieces[other], pieces[point]
    # Swapping keeps the keys in the seed's order: the canonical order of the points.
    arrangement = " ".join(f"{point}={letter}" for point, letter in pieces.items())
    return JieqiBoard(JieqiBoard.START_FEN, arrangement=arrangement)


def red_view(board: JieqiBoard) -> JieqiBoard:
    return JieqiBoard.from_view(board.view(0, game_over=False))


def judged(board: JieqiBoard, move: str) -> tuple[str | None, str | None]:
    """How the move is classed on expectation (the mover's view before it, the move's
    outcomes averaged) and as it turned out (the mover's view after it, the piece known)."""
    before = red_view(board)
    start = evaluate(before, NODES)
    assert start.best != move  # else the engine's own move would lose nothing by definition
    expected = evaluate_after(before, move, NODES)
    board.push(move)
    turned_out = evaluate(red_view(board), NODES)
    return (
        judge(start.score, -expected.score, move, start.best)[1],
        judge(start.score, -turned_out.score, move, start.best)[1],
    )


def test_an_unlucky_reveal_is_not_a_mistake_A3() -> None:
    on_average, as_it_turned_out = judged(dealt(b3="R", b10="p"), "b3b10")
    assert as_it_turned_out in ("mistake", "blunder")  # a chariot for a soldier: the luck
    assert on_average is None


def test_a_reveal_bad_on_average_is_a_mistake_however_it_turned_out_A3() -> None:
    on_average, as_it_turned_out = judged(dealt(a1="A"), "a1a2")
    assert as_it_turned_out in (None, "inaccuracy")  # the advisor guards b1: luck
    assert on_average in ("mistake", "blunder")


def test_the_after_evaluation_averages_the_outcomes_and_leaves_the_board_alone() -> None:
    view = red_view(dealt())
    fen = view.fen()
    found = evaluate_after(view, "a1a2", NODES)
    assert view.fen() == fen
    assert view.ply == 0
    assert found.best is None
    assert found.pv == ()
    assert found.mate is None
    assert -found.score <= evaluate(view, NODES).score - MISTAKE


def _game(store: Any, red: str, black: str, board: JieqiBoard, moves: list[str]) -> str:
    from datetime import timedelta

    from chuhan.server.records import GameRecord, utcnow

    arrangement, salt = board.reveal()
    now = utcnow()
    game = GameRecord(
        id=f"g_reveal_{moves[0]}",
        kind="online",
        variant="jieqi",
        secret={"arrangement": arrangement, "salt": salt},
        start_fen=JieqiBoard.START_FEN,
        moves=moves,
        status="finished",
        result={"winner": "black", "reason": "resignation"},
        created_at=now,
        expires_at=now + timedelta(days=1),
        updated_at=now,
    )
    store.insert_game(game, [{"type": "start"}], [(red, 0), (black, 1)])
    return game.id


def test_a_game_analysis_judges_reveals_by_what_the_mover_could_expect_A3_Z2(tmp_path) -> None:
    """The analysis of a played game: the unlucky capture is not marked, the lucky step is."""
    ai = AnalysingAI()
    with server(tmp_path, ai=ai, analysis_nodes=NODES) as (client, _, store):
        red = client.get("/api/me").json()["id"]
        _stranger(client)
        black = client.get("/api/me").json()["id"]
        unlucky = _game(store, red, black, dealt(b3="R", b10="p"), ["b3b10"])
        lucky = _game(store, red, black, dealt(a1="A"), ["a1a2"])
        assert _analysis_done_after_post(client, unlucky)["plies"][1]["class"] is None
        marked = _analysis_done_after_post(client, lucky)["plies"][1]
        assert marked["class"] in ("mistake", "blunder")
        assert marked["better"]
        for job in ai.jobs:  # every position is a player's view (Z2)
            assert job.view is not None
            assert "hidden" not in job.view
            assert "arrangement" not in job.view
