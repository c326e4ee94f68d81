"""The AI (SPEC A1–A5): it mates, takes what hangs, never hangs a piece past the beginner,
never plays an illegal move, cannot peek in jieqi, and answers draw offers by its policy.

Every search here is bounded by nodes or depth, never by time, so results are reproducible.
"""

from __future__ import annotations

import random

import pytest

from chuhan.engine import accepts_draw, choose_move, choose_setup, hint
from chuhan.engine.ai import search
from chuhan.engine.jieqi import HIDDEN_BONUS, JieqiSearcher
from chuhan.engine.search import INFINITE, Limits
from chuhan.rules import make_board
from chuhan.rules.board import PASS_CODE, Board, Move, code_text
from chuhan.rules.geometry import ADVISOR, CHARIOT, NUM_POINTS, SOLDIER
from chuhan.rules.jieqi import JieqiBoard, arrangement_text, parse_arrangement

LEVELS_ABOVE_BEGINNER = ("intermediate", "advanced")
ALL_LEVELS = ("beginner", "intermediate", "advanced")


def is_mate_after(board: Board, move: Move) -> bool:
    board = board.copy()
    board.push(move)
    outcome = board.outcome()
    return outcome is not None and outcome.reason == "checkmate"


def mates_in_one(board: Board, move: Move) -> bool:
    return is_mate_after(board, move)


def forces_mate_in_two(board: Board, move: Move) -> bool:
    """After ``move`` every reply allows a mate in one."""
    board = board.copy()
    board.push(move)
    replies = board.legal_moves
    if not replies:
        return False
    for reply in replies:
        board.push(reply)
        if not any(mates_in_one(board, m) for m in board.legal_moves):
            return False
        board.pop()
    return True


# Red to move in each; the mates in two have no mate in one.
MATE_IN_ONE = [
    "3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1",  # i1i10: the a9 chariot guards the ninth rank
    "5k3/9/9/9/9/9/9/N1R6/4K1n2/9 w - - 0 1",
]
MATE_IN_TWO = [
    "5k3/9/9/9/9/9/9/3r5/1C2K3R/5N3 w - - 0 1",
    "9/5k3/9/9/2b4n1/2R3R2/9/9/4K4/9 w - - 0 1",
    "3k5/5C3/9/N7p/1R7/9/9/6r2/9/5K3 w - - 0 1",
]


@pytest.mark.parametrize("level", LEVELS_ABOVE_BEGINNER)
@pytest.mark.parametrize("fen", MATE_IN_ONE[:1])
def test_a1_mate_in_one_is_found(level: str, fen: str) -> None:
    board = make_board("xiangqi", fen)
    result = choose_move(board, level, nodes=20_000)
    assert mates_in_one(board, result.move)
    assert result.score > 29_000  # reported as a mate


@pytest.mark.parametrize("level", LEVELS_ABOVE_BEGINNER)
@pytest.mark.parametrize("fen", MATE_IN_TWO)
def test_a1_mate_in_two_is_found(level: str, fen: str) -> None:
    board = make_board("xiangqi", fen)
    result = choose_move(board, level, nodes=30_000)
    assert forces_mate_in_two(board, result.move), result


def mirrored(fen: str) -> str:
    """The same position with the colours (and so the board) swapped, the other side to move."""
    placement, side, *rest = fen.split()
    rows = "/".join(reversed(placement.split("/"))).swapcase()
    return " ".join([rows, "b" if side == "w" else "w", *rest])


@pytest.mark.parametrize("fen", [mirrored(MATE_IN_ONE[1]), mirrored(MATE_IN_TWO[0])])
def test_a1_black_mates_as_well(fen: str) -> None:
    board = make_board("xiangqi", fen)
    assert board.turn == 1
    move = choose_move(board, "intermediate", nodes=30_000).move
    assert mates_in_one(board, move) or forces_mate_in_two(board, move)


HANGING_HORSE = "3aka3/9/9/9/n8/9/9/9/9/R2K5 w - - 0 1"  # a1xa6 wins a horse for nothing
POISONED_HORSE = "r2aka3/9/9/9/n8/9/9/9/9/R2K5 w - - 0 1"  # a1xa6?? a10xa6 loses the chariot


@pytest.mark.parametrize("level", LEVELS_ABOVE_BEGINNER)
def test_a1_a_hanging_piece_is_taken(level: str) -> None:
    board = make_board("xiangqi", HANGING_HORSE)
    assert str(choose_move(board, level, nodes=5_000).move) == "a1a6"


@pytest.mark.parametrize("level", LEVELS_ABOVE_BEGINNER)
def test_a1_intermediate_and_advanced_never_hang_a_piece_to_a_recapture(level: str) -> None:
    board = make_board("xiangqi", POISONED_HORSE)
    for seed in range(3):
        assert str(choose_move(board, level, seed=seed, nodes=5_000).move) != "a1a6"


# Red's horses on a2 and i2 can each take a pawn (a2c3 or i2g3): the same material and, the
# position being symmetric, the same piece-square gain. Only the chariot differs: on a1 it is
# boxed in behind the a2 horse, on i1 behind the i2 horse.
CHARIOT_BOXED_LEFT = "2bakab2/9/9/4p4/9/9/4P4/2p3p2/N7N/R1BAKAB2 w - - 0 1"
CHARIOT_BOXED_RIGHT = "2bakab2/9/9/4p4/9/9/4P4/2p3p2/N7N/2BAKAB1R w - - 0 1"


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize(
    ("fen", "freeing_capture"),
    [(CHARIOT_BOXED_LEFT, "a2c3"), (CHARIOT_BOXED_RIGHT, "i2g3")],
)
def test_a1_of_two_equal_captures_the_one_that_frees_the_chariot_is_preferred(
    fen: str, freeing_capture: str, depth: int
) -> None:
    """Mobility (A1): even a search too short to see the chariot come out prefers it
    free, on either wing, so the choice is not an accident of move order."""
    result = search(Board(fen), Limits(depth=depth))
    assert str(result.move) == freeing_capture


def test_a1_beginner_sometimes_gives_a_piece_away_and_varies_with_the_seed() -> None:
    board = make_board("xiangqi", POISONED_HORSE)
    moves = [str(choose_move(board, "beginner", seed=seed, nodes=6_000).move) for seed in range(30)]
    assert "a1a6" in moves  # like a novice, now and then
    assert moves.count("a1a6") < 20  # but not as a rule
    assert len(set(moves)) > 1


def test_a1_same_seed_same_decision() -> None:
    board = make_board("xiangqi")
    board.push_many(["h3e3", "h10g8"])
    for level in ALL_LEVELS:
        first = choose_move(board, level, seed=7, nodes=3_000)
        again = choose_move(board, level, seed=7, nodes=3_000)
        assert (first.move, first.score, first.nodes, first.pv) == (
            again.move,
            again.score,
            again.nodes,
            again.pv,
        )


def test_a1_search_leaves_the_board_unchanged() -> None:
    board = make_board("xiangqi")
    board.push_many(["h3e3", "h10g8"])
    fen, ply = board.fen(), board.ply
    choose_move(board, "advanced", nodes=3_000)
    assert (board.fen(), board.ply) == (fen, ply)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_a1_a_search_out_of_time_before_its_first_node_still_answers_a_legal_move(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An AI worker the machine leaves waiting (a loaded host) can find its move's time gone
    by the search's first look at the clock: it must still answer a legal move, not fail the
    job. Found by a jieqi match beside a CI run, where the search raised SearchAborted out of
    ``choose_move``. Here the clock jumps a minute per reading, and a stop flag set before
    the search stands for the same on the other path."""
    import threading
    import time

    board = make_board(variant, seed=5) if variant == "jieqi" else make_board(variant)
    board.push_many([code_text(board.legal_codes()[2])])
    legal = set(board.legal_codes())
    real = time.monotonic
    readings = iter(range(10**6))
    monkeypatch.setattr(time, "monotonic", lambda: real() + 60.0 * next(readings))
    result = search(board, Limits(movetime=0.5))
    assert result.move.code in legal
    monkeypatch.setattr(time, "monotonic", real)
    stopped = threading.Event()
    stopped.set()
    assert search(board, Limits(movetime=2.0, stop=stopped)).move.code in legal


def test_a1_unknown_level_and_finished_game_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown level"):
        choose_move(make_board("xiangqi"), "grandmaster")
    mated = make_board("xiangqi", MATE_IN_ONE[0])
    mated.push("i1i10")
    with pytest.raises(ValueError, match="no legal move"):
        choose_move(mated, "advanced", nodes=100)


def test_a4_hint_suggests_the_mate() -> None:
    board = make_board("xiangqi", MATE_IN_ONE[0])
    assert mates_in_one(board, hint(board, nodes=5_000))


def test_e1_perpetual_check_is_not_the_way_out() -> None:
    """E1: the side that checks with every move of a repetition loses, so a perpetual check
    is no rescue: red, a horse down, has checked through the cycle twice; one more check
    (a9a10) would be the third occurrence, which red loses. Scored as a draw, it would be
    red's best move here.
    """
    board = make_board("xiangqi", "3k5/9/9/9/6n2/9/9/9/4r4/R4K3 w - - 0 1")
    board.push_many(["a1a10", "d10d9", "a10a9", "d9d10", "a9a10", "d10d9", "a10a9", "d9d10"])
    result = choose_move(board, "advanced", nodes=20_000)
    assert str(result.move) != "a9a10"
    assert -29_000 < result.score < 0  # worse, not lost on the spot


# ---------------------------------------------------------------------- every variant


def random_position(variant: str, rng: random.Random, plies: int) -> Board:
    board = (
        make_board(variant, seed=rng.randrange(1000))
        if variant == "jieqi"
        else (make_board(variant))
    )
    for _ in range(plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    return board


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_a3_never_an_illegal_move(variant: str) -> None:
    rng = random.Random(f"legal-{variant}")
    checked = 0
    for game in range(6):
        board = random_position(variant, rng, rng.randrange(4, 60))
        if board.outcome() is not None:
            continue
        for level in ALL_LEVELS:
            result = choose_move(board, level, seed=game, nodes=400)
            assert result.move in board.legal_moves, (variant, board.fen(), result)
            checked += 1
    assert checked >= 9


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_the_quiescence_capture_generator_finds_exactly_the_captures(variant: str) -> None:
    """The search's direct capture generator (quiescence) must not miss or invent a capture
    the move generator knows: a missed one would leave a piece hanging past the horizon."""
    rng = random.Random(f"captures-{variant}")
    seen = 0
    for _ in range(40):
        board = random_position(variant, rng, rng.randrange(10, 90))
        for turn in (0, 1):  # also the other side's captures, as after a null move
            if turn:
                board.turn ^= 1
            squares = board.squares
            expected = [c for c in board.pseudo_codes() if c != PASS_CODE and squares[c % 90]]
            assert board.capture_codes() == expected, board.fen()
            seen += len(expected)
            if turn:
                board.turn ^= 1
    assert seen > 100


@pytest.mark.parametrize("variant", ["xiangqi", "janggi", "jieqi"])
def test_a3_a_whole_game_between_levels_stays_legal(variant: str) -> None:
    board = make_board(variant, seed=5) if variant == "jieqi" else make_board(variant)
    for ply in range(24):
        if board.outcome() is not None:
            break
        level = ("beginner", "intermediate")[ply % 2]
        move = choose_move(board, level, seed=ply, nodes=300).move
        board.push(move)  # raises if illegal


def jieqi_twin(board: JieqiBoard, rng: random.Random) -> JieqiBoard:
    """A game with the same moves and public view whose face-down pieces are shuffled."""
    text, _salt = board.reveal()
    start = parse_arrangement(text)
    still_down = sorted(board.face_down)
    for side in (1, -1):
        points = [p for p in still_down if (board.squares[p] > 0) == (side > 0)]
        kinds = [start[p] for p in points]
        rng.shuffle(kinds)
        start.update(zip(points, kinds, strict=True))
    twin = JieqiBoard(arrangement=arrangement_text(start))
    for move in board.move_stack:
        twin.push(move)
    return twin


def test_a3_jieqi_the_engine_cannot_peek() -> None:
    """A3/Z2: whatever the hidden arrangement behind one view, the decision is the same."""
    rng = random.Random(11)
    board = JieqiBoard(seed=42)
    for text in ["h3h10", "i10h10", "b3b10", "a10b10", "h1h3"]:
        if board.outcome() is None and text in board.legal_move_texts():
            board.push(text)
    twins = [jieqi_twin(board, rng) for _ in range(3)]
    assert any(t.reveal()[0] != board.reveal()[0] for t in twins)
    for twin in twins:
        assert twin.view(twin.turn)["fen"] == board.view(board.turn)["fen"]
    for level in ALL_LEVELS:
        results = [choose_move(b, level, seed=3, nodes=1_500) for b in [board, *twins]]
        summary = {(str(r.move), r.score, r.nodes) for r in results}
        assert len(summary) == 1, (level, summary)


def test_a3_jieqi_view_board_is_searched_like_the_full_one() -> None:
    board = JieqiBoard(seed=9)
    board.push_many(["b3b10", "h8h1"])
    view = JieqiBoard.from_view(board.view(board.turn))
    a = choose_move(board, "advanced", nodes=1_500)
    b = choose_move(view, "advanced", nodes=1_500)
    assert (a.move, a.score) == (b.move, b.score)


def reveal_value(view: JieqiBoard, code: int, depth: int, alpha: int, beta: int) -> int:
    """The searcher's value of the reveal ``code`` asked in the window (alpha, beta)."""
    searcher = JieqiSearcher(view, Limits(depth=depth))
    value = searcher._hidden_move(code, depth, alpha, beta, 0, searcher.initial_score(), False)
    assert value is not None
    return value


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a3_jieqi_a_reveal_is_judged_by_its_average_whatever_the_bar(seed: int) -> None:
    """A3: turning a piece over is worth the average over what it may turn out to be, and the
    search compares that average with the bar it is asked about (the null windows of most of
    its nodes): a reveal worth more than the bar is never told "less", nor the other way round.
    The identities used to be searched in the node's own window, so a chariot's "at least"
    went into the average as if it were exact, and reveals 20 cp from the bar came out on the
    wrong side of it.
    """
    board = JieqiBoard(seed=seed)
    board.push_many(["h3h10", "i10h10", "b1c3"][: 1 + seed % 3])
    view = JieqiBoard.from_view(board.view(board.turn))
    reveals = [c for c in view.legal_codes() if c // NUM_POINTS in view.face_down]
    assert len(reveals) > 10
    wrong = []
    for code in reveals:
        exact = reveal_value(view, code, 3, -INFINITE, INFINITE)
        for bar in (exact - 60, exact - 20, exact + 20, exact + 60):
            told = reveal_value(view, code, 3, bar, bar + 1)
            if (told > bar) != (exact > bar):
                wrong.append((code_text(code), exact, bar, told))
    assert not wrong


def test_a3_jieqi_a_face_down_piece_is_valued_by_the_point_it_stands_on() -> None:
    """A face-down piece moves as the piece of its point (Q3), and the search values it
    at its pool's average plus the fitted bonus of that point's kind (bench/jieqi_tune.py):
    losing the one in the chariot's corner costs what that bonus says against losing the one
    on an advisor's or a soldier's point, from either side's view, the pool being the same."""
    assert any(HIDDEN_BONUS.values()), "tuned.json holds no face-down bonuses"
    top = "xxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/"
    without = {  # Red's face-down piece on that point is gone (taken): a1, d1, a4
        CHARIOT: top + "X1X1X1X1X/1X5X1/9/1XXXKXXXX",
        ADVISOR: top + "X1X1X1X1X/1X5X1/9/XXX1KXXXX",
        SOLDIER: top + "2X1X1X1X/1X5X1/9/XXXXKXXXX",
    }
    scores = {}
    for kind, placement in without.items():
        board = JieqiBoard(placement + " w - - 0 1", seed=5)
        assert len(board.face_down) == 29
        for side in (0, 1):
            view = JieqiBoard.from_view(board.view(side))
            scores[kind, side] = JieqiSearcher(view, Limits(depth=1)).initial_score()
    for side in (0, 1):
        for kind in (ADVISOR, SOLDIER):
            assert scores[kind, side] - scores[CHARIOT, side] == (
                HIDDEN_BONUS[CHARIOT] - HIDDEN_BONUS[kind]
            ), (kind, side)


def test_j3_the_ai_picks_a_janggi_setup_by_itself() -> None:
    assert choose_setup(1) in ("HEHE", "EHEH", "HEEH", "EHHE")
    assert choose_setup(0, "HEHE") in ("HEHE", "EHEH", "HEEH", "EHHE")
    assert choose_setup(0, "HEHE") == choose_setup(0, "HEHE")
    with pytest.raises(ValueError, match="unknown setup 'HHEE'"):
        choose_setup(0, "HHEE")


def test_j6_janggi_the_ai_passes_when_a_pass_wins_on_points() -> None:
    """J6/J8: after Han's pass, Cho ahead on points ends the game at once by passing back."""
    board = make_board("janggi", "3a1a3/4k4/9/9/9/9/9/9/4K4/R8 b - - 0 1")
    board.push("pass")
    assert board.turn == 0
    result = choose_move(board, "advanced", nodes=3_000)
    assert result.move.is_pass
    assert result.score > 10_000


def test_j7_with_bikjang_on_points_the_leader_faces_the_generals_to_win() -> None:
    """J7 "points": Cho, a chariot up, ends the game at once by facing the generals."""
    fen = "3a1a3/3k5/9/9/9/9/9/9/4K4/R8 w - - 0 1"
    board = make_board("janggi", fen, bikjang="points")
    move = choose_move(board, "advanced", nodes=3_000).move
    board.push(move)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "bikjang"
    assert outcome.winner == 0
    plain = make_board("janggi", fen)  # bikjang off: facing is no win, so no hurry to face
    assert str(choose_move(plain, "advanced", nodes=3_000).move) != str(move)


# ---------------------------------------------------------------------- draw offers (A5)


def test_a5_accepts_when_it_stands_worse() -> None:
    board = make_board("xiangqi", POISONED_HORSE)  # red is a chariot down
    assert accepts_draw(board, engine_side=0)


def test_a5_declines_when_it_stands_better() -> None:
    board = make_board("xiangqi", POISONED_HORSE)
    assert not accepts_draw(board, engine_side=1)


def test_a5_accepts_a_balanced_quiet_position() -> None:
    board = make_board("xiangqi")
    assert accepts_draw(board, engine_side=0)
    assert accepts_draw(board, engine_side=1)


def test_a5_declines_while_a_check_is_pending() -> None:
    board = make_board("xiangqi", "3k5/9/9/9/9/4r4/9/9/9/R3K4 w - - 0 1")
    assert board.is_check()
    assert not accepts_draw(board, engine_side=1)


def test_a5_declines_after_the_end() -> None:
    board = make_board("xiangqi", MATE_IN_ONE[0])
    board.push("i1i10")
    assert not accepts_draw(board, engine_side=1)
    with pytest.raises(ValueError, match="engine_side must be 0 or 1"):
        accepts_draw(make_board("xiangqi"), engine_side=2)
