"""A game's moves go to the AI worker that made its last one (SPEC A1, A2).

Advanced keeps what its search learned for the same game's next move, in the memory of the
worker process that searched (``engine/ai.py``). With two workers, a pool that hands jobs to
whichever worker is free sends about every other move of a game to a worker that knows
nothing of it; the pool prefers the game's last worker when that one is free, and never makes
a move wait for it.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import cast

import pytest

from chuhan.engine import choose_move
from chuhan.rules import make_board
from chuhan.server.ai.pool import AIJob, AIPool, JobKind, _board

pytestmark = pytest.mark.timeout(180)

GAMES = {  # out of the opening book: each move is a search
    "game-x": (
        "xiangqi",
        "r1bakab1r/9/1cn3nc1/p3p1p1p/2p6/6P2/P1P1P3P/1CN1C1N2/9/R1BAKAB1R w - - 0 1",
    ),
    "game-j": (
        "janggi",
        "r1ba1abnr/4k4/1c2n2c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2N2C1/4K4/RNBA1AB1R w - - 0 1",
    ),
}


def advanced_move(job: AIJob) -> tuple[str, int, int]:
    """The worker's answer: advanced's move, the positions it inherited, the worker's pid."""
    if cast(str, job.kind) == "sleep":  # a long job that holds a worker
        time.sleep(job.movetime or 0)
        return "", 0, os.getpid()
    result = choose_move(_board(job), "advanced", movetime=job.movetime)
    return str(result.move), result.inherited, os.getpid()


def test_each_games_next_move_goes_to_the_worker_that_kept_its_tables_A1() -> None:
    boards = {game: make_board(variant, fen) for game, (variant, fen) in GAMES.items()}

    async def play() -> list[dict[str, tuple[str, int, int]]]:
        pool = AIPool(workers=2, max_jobs=8, runner=advanced_move)
        rounds = []
        try:
            for _ in range(4):
                jobs = [
                    AIJob(
                        "move",
                        GAMES[game][0],
                        fen=GAMES[game][1],
                        level="advanced",
                        movetime=0.3,
                        game=game,
                        moves=tuple(str(m) for m in board.move_stack),
                    )
                    for game, board in boards.items()
                ]
                # Both games ask at once: each worker takes one.
                answers = await asyncio.gather(*(pool.submit(job) for job in jobs))
                rounds.append(dict(zip(boards, answers, strict=True)))
                for game, (move, _, _) in rounds[-1].items():
                    board = boards[game]
                    board.push(move)
                    board.push(choose_move(board, "intermediate", nodes=2_000).move)
        finally:
            pool.shutdown()
        return rounds

    rounds = asyncio.run(play())
    first = rounds[0]
    assert first["game-x"][2] != first["game-j"][2], "one game a worker"
    for later in rounds[1:]:
        for game, (_, inherited, pid) in later.items():
            assert pid == first[game][2], game
            assert inherited > 0, game


def test_a_move_does_not_wait_for_its_games_busy_worker_A2() -> None:
    async def play() -> tuple[int, int, bool]:
        pool = AIPool(workers=2, max_jobs=8, runner=advanced_move)
        try:
            variant, fen = GAMES["game-x"]
            job = AIJob("move", variant, fen=fen, level="advanced", movetime=0.1, game="game-x")
            _, _, first = await pool.submit(job)
            # Another client's long job takes the first free worker: the one game-x used.
            sleeper = asyncio.ensure_future(
                pool.submit(AIJob(cast(JobKind, "sleep"), variant, movetime=30))
            )
            while not pool._busy:
                await asyncio.sleep(0.01)
            board = make_board(variant, fen)
            board.push(choose_move(board, "intermediate", nodes=2_000).move)
            board.push(choose_move(board, "intermediate", nodes=2_000).move)
            again = AIJob(
                "move",
                variant,
                fen=fen,
                level="advanced",
                movetime=0.1,
                game="game-x",
                moves=tuple(str(m) for m in board.move_stack),
            )
            _, _, second = await pool.submit(again)
            waiting = not sleeper.done()
            sleeper.cancel()
            return first, second, waiting
        finally:
            pool.shutdown()

    first, second, sleeper_still_running = asyncio.run(play())
    assert sleeper_still_running
    assert second != first  # its worker was busy: the other one answered
