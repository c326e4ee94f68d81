"""Differential test: our janggi legal moves equal Fairy-Stockfish's in random games (J1–J6).

pyffish's ``janggicasual`` is janggi with bikjang ``off`` (J7). It writes a pass as the general
moving onto its own point (``e2e2``) and generates no move after two consecutive passes
(which end the game, J6), so it is given the whole move history rather than a FEN per position.
"""

from __future__ import annotations

import random

import pyffish

from chuhan.rules import FenError, JanggiBoard, Move, janggi_start_fen
from chuhan.rules.janggi import SETUPS
from test_janggi import fen_of

VARIANT = "janggicasual"


def _from_pyffish(move: str) -> str:
    """``e2e2`` → ``pass``; other moves are already canonical (``h3e3``, ``a10a9``)."""
    split = next(i for i in range(2, len(move)) if move[i].isalpha())
    return "pass" if move[:split] == move[split:] else move


def _to_pyffish(move: str, board: JanggiBoard) -> str:
    if move != "pass":
        return move
    general = board.kings[board.turn]
    return f"{'abcdefghi'[general % 9]}{general // 9 + 1}" * 2


def test_random_games_match_fairy_stockfish_move_sets() -> None:
    rng = random.Random(20261130)
    positions = 0
    checks = 0
    for game in range(12):
        cho, han = SETUPS[game % 4], SETUPS[(game // 4 + game) % 4]
        start = janggi_start_fen(cho, han)
        board = JanggiBoard(setup=f"{cho}:{han}")
        history: list[str] = []
        for _ply in range(110):
            ours = sorted(board.legal_move_texts())
            theirs = sorted(_from_pyffish(m) for m in pyffish.legal_moves(VARIANT, start, history))
            if board.consecutive_passes == 2:
                assert theirs == []  # J6: the game is over; Fairy-Stockfish generates no move
                break
            assert ours == theirs, (board.fen(), history)
            positions += 1
            checks += board.is_check()
            if board.outcome() is not None:
                break
            captures = [
                m for m in ours if m != "pass" and board.piece_letter(Move.parse(m).to_point)
            ]
            # Taking captures half the time thins the board, so that late-game positions
            # (open palaces, lone cannons, soldiers in the enemy palace) come up too.
            move = rng.choice(captures if captures and rng.random() < 0.5 else ours)
            history.append(_to_pyffish(move, board))
            board.push(move)
        their_fen = pyffish.get_fen(VARIANT, start, history)
        assert board.fen().split()[:2] == their_fen.split()[:2]
    assert positions > 1000
    assert checks > 20


def _palace(side: int) -> list[str]:
    ranks = (1, 2, 3) if side == 0 else (8, 9, 10)
    return [f"{f}{r}" for f in "def" for r in ranks]


ALL_POINTS = [f"{f}{r}" for f in "abcdefghi" for r in range(1, 11)]


def _random_position(rng: random.Random) -> dict[str, str]:
    """Generals in their palaces and a random subset of the other pieces, half of the
    chariots, cannons, horses and elephants crowded into the palaces (their diagonals)."""
    pieces: dict[str, str] = {}
    for side, case in ((0, str.upper), (1, str.lower)):
        pieces[rng.choice(_palace(side))] = case("k")
        for letter, most in (("a", 2), ("r", 2), ("c", 2), ("n", 2), ("b", 2), ("p", 5)):
            for _ in range(rng.randint(0, most)):
                if letter == "a":
                    points = _palace(side)
                elif letter == "p":  # never behind its start rank
                    ranks = range(4, 11) if side == 0 else range(1, 8)
                    points = [p for p in ALL_POINTS if int(p[1:]) in ranks]
                elif rng.random() < 0.5:
                    points = _palace(0) + _palace(1)
                else:
                    points = ALL_POINTS
                free = [p for p in points if p not in pieces]
                if free:
                    pieces[rng.choice(free)] = case(letter)
    return pieces


def test_random_positions_match_fairy_stockfish_move_sets_and_checks() -> None:
    rng = random.Random(90)
    compared = 0
    while compared < 300:
        fen = fen_of(_random_position(rng), rng.choice("wb"))
        try:
            board = JanggiBoard(fen)
        except FenError:  # the side not to move is in check
            continue
        theirs = sorted(_from_pyffish(m) for m in pyffish.legal_moves(VARIANT, fen, []))
        assert sorted(board.legal_move_texts()) == theirs, fen
        assert board.is_check() == pyffish.gives_check(VARIANT, fen, []), fen
        compared += 1
