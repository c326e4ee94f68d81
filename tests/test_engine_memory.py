"""Advanced remembers what it learned from one move of a game to the next (SPEC A1:
advanced reads ahead, A2: it answers promptly on a small machine, so the memory is bounded,
A3: jieqi's search knows only what its side may know, A6: the UCI front end).

Its time-limited search keeps the transposition table, mobility cache and history for the
same game's next decision, as engines do between moves; a node-limited search (tests, the
reproducible API) neither takes nor leaves anything, jieqi never carries (a reveal changes
what a face-down piece is worth), another game never gets this one's tables, and the memory
a process keeps is bounded. These searches run on short time budgets; nothing here asserts a
time read from the wall (the one test about how long a search thinks reads a counted clock).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator

import pytest

from chuhan.engine import ai, choose_move
from chuhan.engine.search import Iteration, Limits
from chuhan.engine.uci import UciEngine
from chuhan.rules import make_board
from chuhan.rules.board import Board, Move

# Out of the opening book (the book answers without a search): a middlegame of each variant.
XIANGQI_MIDGAME = "r1bakab1r/9/1cn3nc1/p3p1p1p/2p6/6P2/P1P1P3P/1CN1C1N2/9/R1BAKAB1R w - - 0 1"
JANGGI_MIDGAME = "r1ba1abnr/4k4/1c2n2c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2N2C1/4K4/RNBA1AB1R w - - 0 1"
MOVETIME = 0.2


@pytest.fixture(autouse=True)
def fresh_memory() -> Iterator[None]:
    ai.forget_games()
    yield
    ai.forget_games()


def out_of_book(variant: str, fen: str) -> Board:
    board = make_board(variant, fen)
    assert choose_move(board, "advanced", nodes=500).depth > 0, "a book move"
    return board


def timed_decision(board: Board) -> ai.SearchResult:
    """An advanced decision on the clock that completes a few iterations whatever the load
    (its tables are then sure to hold something): the first move of a game in these tests."""
    return ai.search(board, Limits(depth=4, movetime=60), carry=True)


def reply(board: Board) -> None:
    """The opponent's move (a small node-limited search, which carries nothing)."""
    board.push(choose_move(board, "intermediate", nodes=2_000).move)


@pytest.mark.parametrize(
    ("variant", "fen"), [("xiangqi", XIANGQI_MIDGAME), ("janggi", JANGGI_MIDGAME)]
)
def test_a1_the_next_decision_of_the_same_game_starts_from_the_last_ones_tables(
    variant: str, fen: str
) -> None:
    board = out_of_book(variant, fen)
    first = timed_decision(board)
    assert first.inherited == 0
    board.push(first.move)
    reply(board)
    second = choose_move(board, "advanced", movetime=MOVETIME)
    assert second.inherited > 0
    assert second.move in board.legal_moves


def test_a1_another_game_and_the_other_side_inherit_nothing() -> None:
    board = out_of_book("xiangqi", XIANGQI_MIDGAME)
    choose_move(board, "advanced", movetime=MOVETIME)
    other = make_board("xiangqi", XIANGQI_MIDGAME.replace("P1P1P3P", "P1P1P2P1"))
    assert choose_move(other, "advanced", movetime=MOVETIME).inherited == 0
    # The other side of the first game: its own tables, none yet.
    board.push(choose_move(board, "intermediate", nodes=2_000).move)
    assert choose_move(board, "advanced", movetime=MOVETIME).inherited == 0


def test_a1_a_node_limited_decision_is_the_same_whatever_came_before() -> None:
    board = out_of_book("xiangqi", XIANGQI_MIDGAME)
    alone = choose_move(board, "advanced", nodes=3_000)
    choose_move(board, "advanced", movetime=MOVETIME)  # leaves tables for this game
    again = choose_move(board, "advanced", nodes=3_000)
    assert again.inherited == 0
    assert (again.move, again.score, again.nodes, again.pv) == (
        alone.move,
        alone.score,
        alone.nodes,
        alone.pv,
    )


def test_a3_jieqi_never_carries_tables() -> None:
    board = make_board("jieqi", seed=7)
    for _ in range(3):
        result = choose_move(board, "advanced", movetime=MOVETIME)
        assert result.inherited == 0
        board.push(result.move)
        reply(board)


def test_a2_a_process_keeps_a_bounded_number_of_games(monkeypatch: pytest.MonkeyPatch) -> None:
    games = []
    for n in range(ai.KEPT_GAMES + 1):
        # Games that differ in one soldier's file: different histories.
        fen = XIANGQI_MIDGAME.replace(
            "P1P1P3P", ["P1P1P3P", "P1P1P2P1", "P1P1P1P2", "P1P1PP3"][n % 4]
        )
        board = out_of_book("xiangqi", fen) if n == 0 else make_board("xiangqi", fen)
        board.push(timed_decision(board).move)
        reply(board)
        games.append(board)
    # The first game was the least recently used: it was dropped; the last one is kept.
    assert choose_move(games[0], "advanced", movetime=MOVETIME).inherited == 0
    assert choose_move(games[-1], "advanced", movetime=MOVETIME).inherited > 0
    # A table past the bound (here any table at all) is not kept: that game starts afresh.
    monkeypatch.setattr(ai, "KEPT_ENTRIES", 0)
    board = games[-1]
    board.push(choose_move(board, "advanced", movetime=MOVETIME).move)
    reply(board)
    assert choose_move(board, "advanced", movetime=MOVETIME).inherited == 0


def test_a2_a_table_past_the_bound_keeps_its_deeper_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ai, "KEPT_ENTRIES", 4)
    deep = {key: (ai.KEPT_DEPTH + key % 3, 0, 10, 0) for key in range(3)}
    shallow = dict.fromkeys(range(100, 110), (ai.KEPT_DEPTH - 1, 0, 10, 0))
    ai._keep(ai._Kept(("game",), 1, deep | shallow, dict.fromkeys(range(10), 0), [0]))
    (kept,) = ai._kept
    assert kept.tt == deep
    assert kept.mobility == {}


def uci_best_move(engine: UciEngine, out: io.StringIO, go: str) -> str:
    """Send ``go`` and wait for the search thread's bestmove."""
    before = out.getvalue().count("bestmove")
    engine.handle(go)
    assert engine.thread is not None
    engine.thread.join(timeout=60)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("bestmove")]
    assert len(lines) == before + 1
    return lines[-1].split()[1]


def test_a6_uci_carries_between_moves_of_a_game_and_ucinewgame_forgets() -> None:
    out = io.StringIO()
    engine = UciEngine(out)
    engine.handle("setoption name Level value advanced")
    engine.handle("ucinewgame")
    engine.handle(f"position fen {XIANGQI_MIDGAME}")
    uci_best_move(engine, out, "go depth 3")  # reproducible: keeps nothing
    assert ai._kept == []
    first = uci_best_move(engine, out, "go movetime 200")
    assert len(ai._kept) == 1
    board = make_board("xiangqi", XIANGQI_MIDGAME)
    board.push(first)
    reply(board)
    moves = " ".join(str(m) for m in board.move_stack)
    engine.handle(f"position fen {XIANGQI_MIDGAME} moves {moves}")
    uci_best_move(engine, out, "go movetime 200")
    assert len(ai._kept) == 1  # the game's tables, taken and kept again
    engine.handle("ucinewgame")
    assert ai._kept == []


def test_a1_a_search_cut_short_mid_line_still_leaves_its_tables_for_the_game() -> None:
    # The time's end stops a search wherever it is, deep in a line: what it learned belongs
    # to the game's root all the same.
    board = out_of_book("janggi", JANGGI_MIDGAME)
    stop = threading.Event()
    searcher = ai.searcher_for(board, Limits(movetime=60, stop=stop), carry=True)

    def stop_in_the_next_iteration(iteration: Iteration) -> None:
        if iteration.depth == 3:
            threading.Timer(0.05, stop.set).start()

    searcher.on_iteration = stop_in_the_next_iteration
    code, _, reached, _ = searcher.run()
    assert stop.is_set()
    assert reached >= 3
    ai.keep_tables(searcher)
    board.push(Move.from_code(code))
    reply(board)
    assert choose_move(board, "advanced", movetime=MOVETIME).inherited > 0


class CountingClock:
    """A clock that moves one millisecond each time it is read: a search reads it every few
    hundred nodes, so its "time" is its work, the same on any machine and under any load."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def test_a2_a_carrying_search_thinks_its_whole_time_a_throwaway_one_stops_between_iterations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Advanced's tables carry to the game's next move, so the iteration its time cuts short
    # is not wasted: it thinks until its time is up. A search whose tables are dropped (a
    # hint, another level) stops once an iteration ends past the time manager's share rather
    # than start one it cannot finish. Neither goes past the budget the player was promised.
    budget = 0.12
    for variant, fen in (("xiangqi", XIANGQI_MIDGAME), ("janggi", JANGGI_MIDGAME)):
        board = out_of_book(variant, fen)
        with monkeypatch.context() as patch:
            patch.setattr(time, "monotonic", CountingClock())
            carried = ai.search(board, Limits(movetime=budget), carry=True)
            dropped = ai.search(board, Limits(movetime=budget), carry=False)
        assert budget <= carried.seconds < budget + 0.01, variant
        assert dropped.seconds < budget + 0.01, variant
        assert carried.move in board.legal_moves
        assert dropped.move in board.legal_moves
    # In this xiangqi middlegame the throwaway search's last iteration ends at 70 % of its
    # time and the time manager does not start another (janggi's next one is begun and cut).
    board = make_board("xiangqi", XIANGQI_MIDGAME)
    with monkeypatch.context() as patch:
        patch.setattr(time, "monotonic", CountingClock())
        dropped = ai.search(board, Limits(movetime=budget), carry=False)
    assert dropped.seconds < budget * 0.9


def test_a6_a_search_stopped_mid_line_leaves_its_board_at_the_root() -> None:
    # A node budget stops a search at a node that is the same on every machine; many of these
    # stops fall deep in a capture line. Whatever reads the searched board afterwards (the UCI
    # text of a janggi pass is the mover's general point; the draw decision searches the same
    # board again) must find the root position there.
    for variant, fen, budgets in (
        ("xiangqi", XIANGQI_MIDGAME, range(200, 240)),
        ("janggi", JANGGI_MIDGAME, range(2_270, 2_300)),
    ):
        board = make_board(variant, fen)
        for nodes in budgets:
            searcher = ai.searcher_for(board, Limits(nodes=nodes))
            searcher.run()
            assert (searcher.board.fen(), searcher.board.turn) == (board.fen(), board.turn), (
                variant,
                nodes,
            )
