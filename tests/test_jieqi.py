"""Jieqi rules (SPEC Q1–Q7), what each player may know (Z2), and the jieqi command line."""

from __future__ import annotations

import io
import json
import random
from copy import deepcopy
from typing import Any

import pytest

from chuhan import cli
from chuhan.rules import FenError, IllegalMoveError, Move, RulesError, make_board
from chuhan.rules.geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    ELEPHANT,
    HORSE,
    NUM_POINTS,
    SOLDIER,
    parse_square,
)
from chuhan.rules.jieqi import (
    JieqiBoard,
    arrangement_text,
    parse_arrangement,
    verify_commitment,
)

SIDES = ("red", "black")
STANDARD = sorted("aabbnnrrccppppp")
RED_START = ["a1", "b1", "c1", "d1", "f1", "g1", "h1", "i1", "b3", "h3", "a4", "c4", "e4"]
RED_START += ["g4", "i4"]
BLACK_START = ["a10", "b10", "c10", "d10", "f10", "g10", "h10", "i10", "b8", "h8", "a7"]
BLACK_START += ["c7", "e7", "g7", "i7"]
PUBLIC_KEYS = {
    "variant", "format", "viewer", "start_fen", "fen", "moves", "captured", "commitment",
    "finished",
}  # fmt: skip


def standard_arrangement(**changes: str) -> str:
    """The xiangqi setup as a jieqi arrangement (every piece what its point says), changed
    by swaps given as ``a1="A", d1="R"``."""
    board = make_board("xiangqi")
    letters = {name: board.piece_letter(parse_square(name)) for name in RED_START + BLACK_START}
    letters.update(changes)
    return " ".join(f"{name}={letter}" for name, letter in letters.items())


def jieqi(fen: str | None = None, **changes: str) -> JieqiBoard:
    """A jieqi board whose face-down pieces are what ``changes`` say, else xiangqi's."""
    if fen is None:
        return JieqiBoard(arrangement=standard_arrangement(**changes))
    return JieqiBoard(fen, seed=0)


def targets(board: JieqiBoard, point: str) -> set[str]:
    return {str(m)[len(point) :] for m in board.legal_moves if m.from_point == parse_square(point)}


# --------------------------------------------------------------------------- Q1 – Q7


def test_Q1_board_generals_and_winning_are_xiangqi() -> None:
    """Q1/X3/X5: the flying-general rule holds, and mate ends the game."""
    flying = jieqi("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1")
    assert "d1e1" not in flying.legal_move_texts()
    mate = jieqi("R2k5/1R7/9/9/9/9/9/9/9/4K4 b - - 0 1")
    outcome = mate.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (0, "checkmate")
    with pytest.raises(IllegalMoveError):
        mate.push("d10e10")


def test_Q2_start_has_generals_up_and_fifteen_shuffled_pieces_down() -> None:
    board = JieqiBoard(seed=7)
    assert board.fen() == JieqiBoard.START_FEN
    assert board.piece_letter(parse_square("e1")) == "K"
    assert board.piece_letter(parse_square("e10")) == "k"
    arrangement = parse_arrangement(board.reveal()[0])
    red = sorted(_letter(p).lower() for p in arrangement.values() if p > 0)
    black = sorted(_letter(p) for p in arrangement.values() if p < 0)
    assert red == STANDARD
    assert black == STANDARD
    names = {_name(p) for p in arrangement}
    assert names == set(RED_START + BLACK_START)
    seeds = {JieqiBoard(seed=s).reveal()[0] for s in range(5)}
    assert len(seeds) == 5, "different seeds deal different arrangements"
    few = JieqiBoard("3k5/9/9/9/9/9/9/9/9/3XK4 w - - 0 1", seed=1)
    assert few.piece_letter(parse_square("d1")) == "X"


@pytest.mark.parametrize(
    "fen",
    [
        "3k5/9/9/9/9/X8/9/9/9/4K4 w - - 0 1",  # X off the starting points
        "3k5/9/9/9/9/9/9/9/9/x3K4 w - - 0 1",  # a black face-down piece on a red point
        "X2k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # a red face-down piece on a black point
        "4x4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # no black general; x on the general's point
    ],
)
def test_Q2_face_down_piece_off_its_starting_points_is_invalid(fen: str) -> None:
    with pytest.raises(FenError):
        JieqiBoard(fen, seed=1)


def test_Q3_face_down_piece_moves_as_its_point_and_turns_up_as_what_it_is() -> None:
    # A face-down advisor on the chariot corner moves like a chariot ...
    board = jieqi(a1="A", d1="R", b3="P", c4="C")
    assert targets(board, "a1") == {"a2", "a3"}
    # ... a face-down piece on an advisor point moves like a palace advisor ...
    assert targets(board, "d1") == {"e2"}
    # ... and a face-down piece on a cannon point captures like a cannon.
    assert "b3b10" in board.legal_move_texts()
    assert "d1e2" in board.legal_move_texts()
    board.push("a1a3")
    assert board.piece_letter(parse_square("a3")) == "A"
    assert parse_square("a3") not in board.face_down
    board.push("a10a9")
    assert targets(board, "a3") == {"b2", "b4"}, "face up it is an advisor (Q4: anywhere)"
    board.push("c4c5")
    assert board.piece_letter(parse_square("c5")) == "C"


def test_Q3_face_down_soldier_point_moves_forward_only() -> None:
    board = jieqi(e4="R", a1="P")
    assert targets(board, "e4") == {"e5"}
    board.push("e4e5")
    assert board.piece_letter(parse_square("e5")) == "R"


def test_Q4_face_up_advisors_and_elephants_roam_generals_stay_home() -> None:
    board = jieqi("3k5/9/9/9/2B6/4A4/9/9/9/4K4 w - - 0 1")
    assert targets(board, "e5") == {"d6", "f6", "d4", "f4"}
    assert targets(board, "c6") == {"a8", "e8", "a4", "e4"}, "the elephant crosses the river"
    assert targets(board, "e1") == {"f1", "e2"}, "palace only, and d1 would face the general"
    blocked = jieqi("3k5/9/9/3P5/2B6/9/9/9/9/4K4 w - - 0 1")
    assert targets(blocked, "c6") == {"a8", "a4", "e4"}, "the eye still blocks"


def test_Q4_face_up_advisor_and_elephant_give_check() -> None:
    assert jieqi("4k4/3A5/9/9/9/9/9/9/9/3K5 b - - 0 1").is_check()
    assert jieqi("4k4/9/2B6/9/9/9/9/9/9/3K5 b - - 0 1").is_check()
    assert not jieqi("4k4/3p5/2B6/9/9/9/9/9/9/3K5 b - - 0 1").is_check()


def test_Q3_Q4_advisors_elephants_and_checks_in_random_games() -> None:
    """In random games, advisors and elephants move as a plain reading of Q3/Q4 says (face
    down: palace advisor; face up: any diagonal step, elephants across the river with the eye
    free), and the general is in check exactly when an enemy piece could move onto it."""
    roaming_checks = roaming_moves = 0
    for game in range(30):
        rng = random.Random(1000 + game)
        board = JieqiBoard(seed=1000 + game)
        for _ in range(150):
            if board.is_game_over():
                break
            board._push_code(rng.choice(board.legal_codes()))
            pseudo = board.pseudo_codes()
            for point, piece in enumerate(board.squares):
                if piece * (1 if board.turn == 0 else -1) in (ADVISOR, ELEPHANT):
                    expected = _plain_targets(board, point)
                    found = {code % NUM_POINTS for code in pseudo if code // NUM_POINTS == point}
                    assert found == expected, (board.fen(), _name(point))
                    roaming_moves += point not in board.face_down and bool(found)
            board.turn ^= 1
            threats = {code % NUM_POINTS for code in board.pseudo_codes()}
            board.turn ^= 1
            in_check = board.kings[board.turn] in threats
            assert board.is_check() == in_check, board.fen()
            if in_check and board._attacked_extra(board.kings[board.turn], 1 - board.turn):
                roaming_checks += 1
    assert roaming_checks > 0, "some checks come from a face-up advisor or elephant"
    assert roaming_moves > 100


def test_Q5_captured_face_down_piece_is_known_to_its_capturer_only() -> None:
    board = JieqiBoard(seed=3)
    truth = parse_arrangement(board.reveal()[0])
    board.push("b3b10")  # a face-down cannon takes the face-down piece on b10
    taken = _letter(truth[parse_square("b10")])
    revealed = _letter(truth[parse_square("b3")])
    red, black = board.view("red"), board.view("black")
    assert red["captured"] == {"red": [], "black": [taken]}
    assert black["captured"] == {"red": [], "black": ["?"]}
    assert red["moves"] == [{"move": "b3b10", "reveal": revealed, "captured": taken}]
    assert black["moves"] == [{"move": "b3b10", "reveal": revealed, "captured": "?"}]
    assert "arrangement" not in black
    assert "hidden" not in black
    # When the game ends (here: Black resigns), both players see everything.
    after = board.view("black", game_over=True)
    assert after["captured"]["black"] == [taken]
    text, salt = after["arrangement"], after["salt"]
    assert verify_commitment(after["commitment"], text, salt)


def test_Q5_Z2_views_of_random_games_name_no_secret() -> None:
    """For hundreds of random games, each player's serialised view after every move holds
    exactly what that player may know: every capture names the true piece, or "?" exactly
    where the player lost a piece face down, and nothing in the view changes when every
    identity the player cannot know is dealt differently."""
    question_marks = blind_games = 0
    for game in range(200):
        rng = random.Random(game)
        board = JieqiBoard(seed=game)
        expected: dict[str, dict[str, list[str]]] = {
            knower: {"red": [], "black": []} for knower in (*SIDES, "all")
        }
        for _ in range(30):
            if board.is_game_over():
                break
            move = Move.from_code(rng.choice(board.legal_codes()))
            taken: dict[str, str | None] = dict.fromkeys(SIDES)
            if board.squares[move.to_point]:
                face_down = move.to_point in board.face_down
                piece = (board.hidden or {})[move.to_point] if face_down else 0
                letter = _letter(piece or board.squares[move.to_point])
                loser = SIDES[1 - board.turn]
                expected["all"][loser].append(letter)
                for viewer, side in enumerate(SIDES):
                    seen = "?" if face_down and viewer != board.turn else letter
                    taken[side] = seen
                    expected[side][loser].append(seen)
            board._push_code(move.code)  # legal: drawn from the legal moves
            for side in SIDES:
                view = json.loads(json.dumps(board.view(side)))
                if board.is_game_over():  # Q5: at the end both players see everything
                    assert set(view) == PUBLIC_KEYS | {"arrangement", "salt"}
                    assert view["captured"] == expected["all"]
                    continue
                assert set(view) == PUBLIC_KEYS, "no secret field before the end"
                assert view["captured"] == expected[side]
                assert view["moves"][-1]["captured"] == taken[side]
                question_marks += taken[side] == "?"
        side = SIDES[game % 2]
        if not board.is_game_over():
            assert _view_with_other_secrets(board, side, rng) == _without_commitment(
                board.view(side)
            )
            blind_games += 1
    assert question_marks > 100, "the games must include face-down captures"
    assert blind_games > 150


def test_Q6_no_capture_limit_and_bare_generals_draw() -> None:
    board = jieqi("3k5/9/9/9/9/9/9/9/9/4KR3 w - - 119 80")
    board.push("f1f2")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, "no_capture_limit")
    bare = jieqi("3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1")
    assert bare.outcome() is None, "a face-up advisor can still mate in jieqi"
    bare.push("d10d9")
    bare.push("e2d3")
    assert bare.outcome() is None
    alone = jieqi("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
    outcome = alone.outcome()
    assert outcome is not None
    assert outcome.reason == "insufficient_material"


def test_Q6_repetition_compares_faces() -> None:
    board = jieqi()
    start = board.key
    board.push_many(["a1a2", "a10a9", "a2a1", "a9a10"])
    assert board.fen().split()[0] == "rxxxkxxxx/9/1x5x1/x1x1x1x1x/9/9/X1X1X1X1X/1X5X1/9/RXXXKXXXX"
    assert board.key != start
    assert board.repetition_count() == 1
    board.push_many(["a1a2", "a10a9"])
    assert board.repetition_count() == 2, "the faces up again, as after the second move"
    board.push_many(["a2a1", "a9a10", "a1a2"])
    assert board.outcome() is None
    board.push("a10a9")
    assert board._keys.count(start) == 1
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.reason == "repetition"


def test_Q7_commitment_verifies_for_an_honest_game_and_fails_when_changed() -> None:
    board = JieqiBoard()  # the server's way: cryptographic source, no seed
    published = board.view("red")["commitment"]
    rng = random.Random(1)
    while not board.is_game_over() and board.ply < 60:
        board.push(rng.choice(board.legal_moves))
    text, salt = board.reveal()
    assert verify_commitment(published, text, salt)
    swapped = parse_arrangement(text)
    a1, b1 = parse_square("a1"), parse_square("b1")
    if swapped[a1] == swapped[b1]:
        b1 = next(p for p in swapped if 0 < swapped[p] != swapped[a1])
    swapped[a1], swapped[b1] = swapped[b1], swapped[a1]
    assert not verify_commitment(published, arrangement_text(swapped), salt)
    assert not verify_commitment(published, text, "0" * 32)
    assert JieqiBoard().commitment != JieqiBoard().commitment, "fresh salt and deal each game"


# --------------------------------------------------------------------------- views and the engine


def test_from_view_boards_generate_the_same_moves_and_history() -> None:
    for game in range(12):
        rng = random.Random(100 + game)
        board = JieqiBoard(seed=game)
        for _ply in range(50):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        for side in ("red", "black"):
            rebuilt = JieqiBoard.from_view(json.loads(json.dumps(board.view(side))))
            assert not rebuilt.has_secret or board.is_game_over()
            assert sorted(rebuilt.legal_move_texts()) == sorted(board.legal_move_texts())
            assert rebuilt._keys == board._keys
            assert rebuilt.fen() == board.fen()
            assert rebuilt.outcome() == board.outcome()
            assert rebuilt.view(side) == board.view(side)
        full = JieqiBoard.from_view(board.view("all"))
        assert full.has_secret
        assert full.view("all") == board.view("all")


def test_secretless_board_needs_the_revealed_identity_from_its_caller() -> None:
    board = JieqiBoard(seed=5)
    board.push("b3b10")
    red = JieqiBoard.from_view(board.view("red"))
    # Red knows both the cannon it moved and the piece it took; the rest is the pool.
    assert sum(red.unknown_pool(0).values()) == 14
    assert sum(red.unknown_pool(1).values()) == 14
    black = JieqiBoard.from_view(board.view("black"))
    assert sum(black.unknown_pool(1).values()) == 15, "Black cannot tell what it lost"
    with pytest.raises(RulesError):
        black.push("a10a9")
    options = black.unknown_pool(1)
    kind = next(iter(options))
    black.push("a10a9", reveal=kind)
    assert black.unknown_pool(1).get(kind, 0) == options[kind] - 1
    assert black.piece_letter(parse_square("a9")) == _letter(-kind)
    assert black.pop().code == parse_square("a10") * NUM_POINTS + parse_square("a9")
    assert black.unknown_pool(1) == options
    with pytest.raises(RulesError):
        black.view("red")


def test_reveal_on_a_secretless_board_must_be_possible() -> None:
    board = jieqi()  # every piece what its point says
    board.push_many(["a1a2", "a10a9", "i1i2", "i10i9"])  # both red chariots are out
    red = JieqiBoard.from_view(board.view("red"))
    assert CHARIOT not in red.unknown_pool(0)
    assert red.unknown_pool(0) == {ADVISOR: 2, ELEPHANT: 2, HORSE: 2, CANNON: 2, SOLDIER: 5}
    with pytest.raises(RulesError):
        red.push("b1c3", reveal="R")
    red.push("b1c3", reveal="N")
    assert red.piece_letter(parse_square("c3")) == "N"


def test_make_unmake_restores_everything_and_perft_follows_the_arrangement() -> None:
    board = JieqiBoard(seed=9)

    def state() -> tuple[Any, ...]:
        return board.fen(), board.key, board.hidden, board.pool, board.roamers, board.face_down

    before = deepcopy(state())
    total = board.perft(3)
    assert before == state()
    assert total == sum(count for _, count in board.divide(3))
    # Depth 2 from the start: a reveal changes what Black can answer, so it follows the deal.
    manual = 0
    for move in board.legal_move_texts():
        child = board.copy()
        child.push(move)
        manual += len(child.legal_move_texts())
    assert board.perft(2) == manual


def test_bad_input_gets_a_clear_error() -> None:
    board = JieqiBoard(seed=2)
    with pytest.raises(RulesError):
        board.view("green")
    view = board.view("red")
    with pytest.raises(RulesError):
        JieqiBoard.from_view({**view, "fen": "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"})
    with pytest.raises(RulesError):
        JieqiBoard.from_view({**view, "moves": [{"move": "a1a9", "reveal": "R"}]})
    with pytest.raises(RulesError):
        JieqiBoard.from_view({"variant": "jieqi"})
    with pytest.raises(RulesError):
        JieqiBoard(arrangement="a1=R")  # names too few points
    with pytest.raises(RulesError):
        JieqiBoard.from_view({**board.view("all"), "salt": "00"})
    with pytest.raises(RulesError):
        board.push("a1a2", reveal="K")
    with pytest.raises(RulesError):
        make_board("jieqi", setup="HEHE:HEHE")
    assert not verify_commitment("é" * 64, *board.reveal())
    over = {"start_fen": "R2k5/1R7/9/9/9/9/9/9/9/4K4 b - - 0 1", "viewer": "red"}
    with pytest.raises(RulesError):
        JieqiBoard.from_view({**over, "commitment": "", "moves": [{"move": "d10e10"}]})


# --------------------------------------------------------------------------- command line


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = cli.main(list(args))
    return status, capsys.readouterr().out


def test_cli_game_view_red_hides_what_red_may_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    board = JieqiBoard(seed=1)
    truth = parse_arrangement(board.reveal()[0])
    status, out = run_cli(
        capsys, "game", "--variant", "jieqi", "--seed", "1", "--view", "red", "h3h10", "i10h10"
    )
    assert status == 0
    state = json.loads(out)
    assert "hidden" not in state
    assert "arrangement" not in state
    assert state["captured"] == {
        "red": [_letter(truth[parse_square("h3")])],
        "black": [_letter(truth[parse_square("h10")])],
    }
    _, out = run_cli(
        capsys, "game", "--variant", "jieqi", "--seed", "1", "--view", "black", "h3h10", "i10h10"
    )
    assert json.loads(out)["captured"]["black"] == ["?"]
    assert state["commitment"] == board.commitment
    assert state["turn"] == "red"
    assert "X" in state["fen"]


def test_cli_game_view_all_maps_each_face_down_point(capsys: pytest.CaptureFixture[str]) -> None:
    board = JieqiBoard(seed=1)
    truth = parse_arrangement(board.reveal()[0])
    status, out = run_cli(capsys, "game", "--variant", "jieqi", "--seed", "1", "--view", "all")
    assert status == 0
    state = json.loads(out)
    assert state["hidden"] == {_name(p): _letter(k) for p, k in truth.items()}
    _, default = run_cli(capsys, "game", "--variant", "jieqi", "--seed", "1")
    assert json.loads(default)["hidden"] == state["hidden"]


def test_cli_perft_and_moves_for_jieqi(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = run_cli(capsys, "perft", "--variant", "jieqi", "--seed", "4", "--depth", "2")
    assert status == 0
    assert int(out.split()[-1]) == JieqiBoard(seed=4).perft(2)
    monkeypatch.setattr("sys.stdin", io.StringIO(JieqiBoard.START_FEN + "\n"))
    status, out = run_cli(capsys, "moves", "--variant", "jieqi")
    assert status == 0
    assert len(out.split()) == 44


# --------------------------------------------------------------------------- helpers


def _letter(piece: int) -> str:
    letter = " kabnrcp"[abs(piece)]
    return letter.upper() if piece > 0 else letter


def _name(point: int) -> str:
    return f"{'abcdefghi'[point % 9]}{point // 9 + 1}"


def _plain_targets(board: JieqiBoard, point: str | int) -> set[int]:
    """Where the advisor or elephant on ``point`` may step, read straight from Q3/Q4."""
    point = parse_square(point) if isinstance(point, str) else point
    piece = board.squares[point]
    f, r = point % 9, point // 9
    out = set()
    for df in (-1, 1):
        for dr in (-1, 1):
            if abs(piece) == ADVISOR:
                nf, nr = f + df, r + dr
            else:
                nf, nr = f + 2 * df, r + 2 * dr
                if not (0 <= nf < 9 and 0 <= nr < 10) or board.squares[(r + dr) * 9 + f + df]:
                    continue
            if not (0 <= nf < 9 and 0 <= nr < 10):
                continue
            if point in board.face_down and abs(piece) == ADVISOR:
                palace = range(0, 3) if piece > 0 else range(7, 10)
                if not (3 <= nf <= 5 and nr in palace):
                    continue
            if board.squares[nr * 9 + nf] * piece <= 0:
                out.add(nr * 9 + nf)
    return out


def _without_commitment(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "commitment"}


def _view_with_other_secrets(board: JieqiBoard, side: str, rng: random.Random) -> dict[str, Any]:
    """``side``'s view of the same game dealt differently wherever ``side`` cannot know."""
    viewer = ("red", "black").index(side)
    truth = parse_arrangement(board.reveal()[0])
    known: set[int] = set()
    replay = JieqiBoard(board.start_fen, arrangement=board.reveal()[0])
    origin = {p: p for p in truth}
    for move in board.move_stack:
        fr, to = move.from_point, move.to_point
        if to in origin:
            if to in replay.face_down and replay.turn == viewer:
                known.add(origin[to])
            del origin[to]
        if fr in origin:
            known.add(origin[fr])
            origin[to] = origin.pop(fr)
        replay._push_code(move.code)
    other = dict(truth)
    for colour in (1, -1):
        blind = [p for p in truth if p not in known and truth[p] * colour > 0]
        kinds = [truth[p] for p in blind]
        rng.shuffle(kinds)
        other.update(zip(blind, kinds, strict=True))
    again = JieqiBoard(board.start_fen, arrangement=other)
    for move in board.move_stack:
        again._push_code(move.code)  # the same moves stay legal: legality is public (Q3)
    return _without_commitment(again.view(side))
