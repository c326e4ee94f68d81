"""Differential test: our janggi legal moves equal Fairy-Stockfish's in random games (J1–J6).

pyffish's ``janggicasual`` is janggi with bikjang ``off`` (J7). It writes a pass as the general
moving onto its own point (``e2e2``) and generates no move after two consecutive passes
(which end the game, J6), so it is given the whole move history rather than a FEN per position.
"""

from __future__ import annotations

import random

import pyffish

from chuhan.rules import JanggiBoard, Move, janggi_start_fen
from chuhan.rules.janggi import SETUPS

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
