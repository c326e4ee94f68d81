"""Differential test: our legal moves equal Fairy-Stockfish's (pyffish) in random xiangqi games."""

from __future__ import annotations

import random

import pyffish

from chuhan.rules import Board


def test_random_games_match_fairy_stockfish_move_sets() -> None:
    rng = random.Random(20261130)
    positions = 0
    for _game in range(20):
        board = Board()
        for _ply in range(120):
            ours = sorted(board.legal_move_texts())
            theirs = sorted(pyffish.legal_moves("xiangqi", board.fen(), []))
            assert ours == theirs, board.fen()
            positions += 1
            if board.outcome() is not None:
                break
            board.push(rng.choice(ours))
    assert positions > 1000
