"""The AI worker pool: engine searches run in worker processes, never on the event loop.

Jobs carry plain data (variant, board options, moves or a jieqi view, level, seed) so that a
worker rebuilds the position itself. The pool is bounded: when ``max_jobs`` are waiting or
running, :meth:`AIPool.submit` raises :class:`AIBusyError` at once instead of queueing more.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import multiprocessing
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("chuhan.ai")


class AIBusyError(Exception):
    """Every AI worker is busy and the queue is full: retry shortly."""


@dataclass(frozen=True)
class AIJob:
    """One engine request. ``kind``: ``move``, ``hint``, ``draw`` (accept a draw?), ``setup``
    or ``analysis`` (one position of a game's analysis, :mod:`chuhan.engine.analysis`).

    ``view`` is the jieqi view of the side the engine plays for (SPEC A3: it never sees more).
    """

    kind: str
    variant: str
    fen: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    view: dict[str, Any] | None = None
    level: str = "beginner"
    seed: int = 0
    side: int = 0
    movetime: float | None = None
    nodes: int | None = None  # ``analysis``: the node budget of one position (issue 17)


def _board(job: AIJob) -> Any:
    from ..rules import make_board

    if job.view is not None:
        from ..rules.jieqi import JieqiBoard

        return JieqiBoard.from_view(job.view)
    board = make_board(job.variant, job.fen, **job.options)
    for text in job.moves:
        board.push(text)
    return board


def run_job(job: AIJob) -> Any:
    """Run one job in a worker process; returns a move text, a bool (draw) or a setup."""
    from .. import engine  # imported here: workers load the engine, the server need not

    if job.kind == "setup":
        return _choose_setup(job.side, job.options.get("opponent_setup"), job.seed)
    if job.kind == "analysis":  # one position of a game's analysis (server/review.py)
        from ..engine.analysis import run_position

        return run_position(dataclasses.asdict(job), os.environ.get("CHUHAN_ANALYSIS_ENGINE"))
    board = _board(job)
    if job.kind == "move":
        result = engine.choose_move(board, job.level, seed=job.seed, movetime=job.movetime)
        return str(result.move)
    if job.kind == "hint":
        return str(engine.hint(board, seed=job.seed))
    if job.kind == "draw":
        return bool(engine.accepts_draw(board, job.side))
    raise ValueError(f"unknown AI job kind {job.kind!r}")


def _choose_setup(side: int, opponent_setup: str | None, seed: int) -> str:
    """The AI's janggi setup (SPEC J3): the engine's choice, seeing the opponent's setup when
    it chooses second (Cho); a seeded draw if the engine has no such function."""
    from .. import engine

    choose = getattr(engine, "choose_setup", None)
    if choose is not None:
        return str(choose(side, opponent_setup))
    from ..rules.janggi import SETUPS

    return random.Random(seed).choice(SETUPS)


def _timed(runner: Callable[[AIJob], Any], job: AIJob) -> tuple[float, float, Any]:
    """``runner(job)`` with the wall-clock moments it started and ended (in the worker)."""
    started = time.time()
    answer = runner(job)
    return started, time.time(), answer


def _warm_up() -> None:
    """Load the engine in each worker as it starts, so the first move is not slower."""
    with contextlib.suppress(Exception):  # a failing job reports the real error
        from .. import engine  # noqa: F401


class AIPool:
    """A bounded pool of worker processes (or any executor, for tests).

    :class:`~.ai_queue.SharedAIPool` has the same interface but sends jobs through Redis.
    """

    shared = False  # True when jobs go through the shared queue to other processes

    def __init__(
        self,
        workers: int,
        max_jobs: int,
        runner: Callable[[AIJob], Any] = run_job,
        executor: concurrent.futures.Executor | None = None,
    ) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        self.runner = runner
        self._executor = executor
        self.pending = 0
        # Called with each finished job, its seconds waiting for a worker and running.
        self.job_observers: list[Callable[[AIJob, float, float], None]] = []

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm_up,
            )
        return self._executor

    async def start(self) -> None:
        """Nothing to start: the worker processes start with the first job."""

    async def submit(self, job: AIJob) -> Any:
        """Run ``job`` in a worker and return its answer.

        Raises :class:`AIBusyError` when the pool is full, or the job's own exception.
        """
        if self.pending >= self.max_jobs:
            raise AIBusyError("the AI is busy; retrying")
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            submitted = time.time()
            started, ended, answer = await loop.run_in_executor(
                self._pool(), _timed, self.runner, job
            )
            for observe in self.job_observers:
                observe(job, max(0.0, started - submitted), ended - started)
            return answer
        finally:
            self.pending -= 1

    def queue_state(self) -> dict[str, Any]:
        """The shared queue's state (a pool of its own has no shared queue: empty)."""
        return {}

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def close(self) -> None:
        """Release connections after :meth:`shutdown` (a pool of its own has none)."""
