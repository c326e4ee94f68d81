"""The AI worker pool: engine searches run in worker processes, never on the event loop.

Jobs carry plain data (variant, board options, moves or a jieqi view, level, seed) so that a
worker rebuilds the position itself. The pool is bounded: when ``max_jobs`` are waiting or
running, :meth:`AIPool.submit` raises :class:`AIBusyError` at once instead of queueing more.

Fair shares (SPEC A2 for everyone, Z5): a job counts against the player who asked
(``AIJob.owner``) and the address block the request came from (:data:`CLIENT_BLOCK`); beyond
``per_player`` or ``per_address`` jobs waiting or running at once, that player's next job is
answered "busy", after ``OVER_SHARE_WAIT_SECONDS`` (a client that asks again as soon as it is
answered is slowed down, not served a refusal as fast as it can ask). Waiting jobs are handed
to the workers round-robin over address blocks, so a newcomer's job waits for at most one job
of each other client, never behind a flood.

A game's jobs go to the worker that served the game last when that worker is free (advanced
keeps what a search learned for the game's next move in the worker's memory,
:func:`chuhan.engine.ai.searcher_for`); when it is busy, to any free worker, so the preference
never makes a job wait.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..addresses import CLIENT_BLOCK

log = logging.getLogger("chuhan.ai")
OVER_SHARE_WAIT_SECONDS = 1.0
REMEMBERED_GAMES = 1_000  # games whose last worker the pool remembers (least recent dropped)


class AIBusyError(Exception):
    """Every AI worker is busy and the queue is full: retry shortly."""


JobKind = Literal["move", "hint", "draw", "setup", "analysis"]


@dataclass(frozen=True)
class AIJob:
    """One engine request. ``kind``: ``move``, ``hint``, ``draw`` (accept a draw?), ``setup``
    or ``analysis`` (one position of a game's analysis, :mod:`chuhan.engine.analysis`).

    ``view`` is the jieqi view of the side the engine plays for (SPEC A3: it never sees more).
    """

    kind: JobKind
    variant: str
    fen: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    view: dict[str, Any] | None = None
    level: str = "beginner"
    seed: int = 0
    side: int = 0
    movetime: float | None = None
    nodes: int | None = None  # ``analysis``: the node budget of one position (N4)
    owner: str = ""  # the player whose share it uses; empty for the server's own jobs
    # ``move``: the game it plays in; the worker that made the game's last move is preferred
    # (it keeps what that search learned). Empty: any worker.
    game: str = ""


def _board(job: AIJob) -> Any:
    from ...rules import make_board

    if job.view is not None:
        from ...rules.jieqi import JieqiBoard

        return JieqiBoard.from_view(job.view)
    board = make_board(job.variant, job.fen, **job.options)
    for text in job.moves:
        board.push(text)
    return board


def run_job(job: AIJob, analysis_engine: str | None = None) -> Any:
    """Run one job in a worker process; returns a move text, a bool (draw) or a setup.

    ``analysis_engine``: the UCI engine that analyses xiangqi and janggi positions instead of
    ours (``Settings.analysis_engine``).
    """
    from ... import engine  # imported here: workers load the engine, the server need not

    if job.kind == "setup":
        return _choose_setup(job.side, job.options.get("opponent_setup"), job.seed)
    if job.kind == "analysis":  # one position of a game's analysis (server/games/analysis.py)
        from ...engine.analysis import run_position

        return run_position(dataclasses.asdict(job), analysis_engine)
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
    from ... import engine

    choose = getattr(engine, "choose_setup", None)
    if choose is not None:
        return str(choose(side, opponent_setup))
    from ...rules.janggi import SETUPS

    return random.Random(seed).choice(SETUPS)


def _timed(runner: Callable[[AIJob], Any], job: AIJob) -> tuple[float, float, Any]:
    """``runner(job)`` with the wall-clock moments it started and ended (in the worker)."""
    started = time.time()
    answer = runner(job)
    return started, time.time(), answer


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies (Linux)
PARENT_POLL_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the server that started it) dies.

    On Linux the kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``), even in
    the middle of a search; everywhere a daemon thread also polls the parent's id (the
    fallback, and it covers a parent that died before the signal was asked for). Without
    this, a worker of a SIGKILLed server waits for jobs forever: it holds both ends of its
    job queue's pipe, so the pipe never reports the server gone.
    """
    with contextlib.suppress(Exception):  # not Linux, or no libc: the thread below suffices
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)  # orphaned: nobody will read an answer

    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _warm_up(parent: int) -> None:
    """Set up each worker as it starts: it dies with the server, and loads the engine so
    that the first move is not slower."""
    die_with_parent(parent)
    with contextlib.suppress(Exception):  # a failing job reports the real error
        from ... import engine  # noqa: F401


@dataclass
class FairShares:
    """Jobs waiting or running per player and per address block (SPEC Z5). ``None``: no
    limit. The server's own jobs (no owner, no address) are not counted."""

    per_player: int | None = None
    per_address: int | None = None
    players: Counter[str] = field(default_factory=Counter)
    addresses: Counter[str] = field(default_factory=Counter)

    def take(self, owner: str, block: str) -> None:
        """Count a job; raises :class:`AIBusyError` when its player or address has its share."""
        if owner and self.per_player is not None and self.players[owner] >= self.per_player:
            raise AIBusyError("you already have the AI thinking for you; retry in a moment")
        if block and self.per_address is not None and self.addresses[block] >= self.per_address:
            raise AIBusyError("your network already has the AI thinking; retry in a moment")
        if owner:
            self.players[owner] += 1
        if block:
            self.addresses[block] += 1

    def give_back(self, owner: str, block: str) -> None:
        for counter, key in ((self.players, owner), (self.addresses, block)):
            if key:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


class FairTurns:
    """At most ``capacity`` turns at once, handed round-robin over address blocks and, within
    a block, over its players (SPEC Z7): whoever asks waits for at most one turn
    of each other block (and each other player of its own block), however many turns any of
    them has asked for. Used by the analyses (one turn per position, ``games/analysis.py``), whose
    many small jobs would otherwise be served first come, first served."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self.taken = 0
        self._waiting: OrderedDict[str, OrderedDict[str, deque[asyncio.Future[None]]]] = (
            OrderedDict()
        )

    @contextlib.asynccontextmanager
    async def turn(self, block: str, owner: str) -> AsyncIterator[None]:
        """Wait for a turn of ``owner`` (from ``block``) and hold it for the ``with`` body."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(block, OrderedDict()).setdefault(owner, deque()).append(ready)
        self._hand_out()
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self._give_back()  # the turn came as the waiter was cancelled
            else:
                self._forget(block, owner, ready)
            raise
        try:
            yield
        finally:
            self._give_back()

    def _give_back(self) -> None:
        self.taken -= 1
        self._hand_out()

    def _forget(self, block: str, owner: str, ready: asyncio.Future[None]) -> None:
        owners = self._waiting.get(block)
        queue = owners.get(owner) if owners is not None else None
        if owners is None or queue is None or ready not in queue:
            return
        queue.remove(ready)
        if not queue:
            del owners[owner]
        if not owners:
            del self._waiting[block]

    def _hand_out(self) -> None:
        while self.taken < self.capacity and self._waiting:
            block, owners = self._waiting.popitem(last=False)
            owner, queue = owners.popitem(last=False)
            ready = queue.popleft()
            if queue:
                owners[owner] = queue  # the owner's next turn: after its block's others
            if owners:
                self._waiting[block] = owners  # the block's next turn: after the others
            if ready.done():
                continue
            self.taken += 1
            ready.set_result(None)


class AIPool:
    """A bounded pool of worker processes (or any executor, for tests), shared fairly.

    :class:`~.ai.shared_pool.SharedAIPool` has the same interface but sends jobs through Redis.
    """

    shared = False  # True when jobs go through the shared queue to other processes

    def __init__(
        self,
        workers: int,
        max_jobs: int,
        runner: Callable[[AIJob], Any] = run_job,
        executor: concurrent.futures.Executor | None = None,
        per_player: int | None = None,
        per_address: int | None = None,
    ) -> None:
        self.workers = workers
        self.max_jobs = max_jobs
        self.runner = runner
        # One single-process executor a worker (a lane), so that a job can be sent to the
        # worker of its choice; an executor given (tests) is every lane at once.
        self._executor = executor
        self._lanes: list[concurrent.futures.Executor] = []
        self._busy: set[int] = set()
        self._served: OrderedDict[str, int] = OrderedDict()  # game -> its last lane
        self.pending = 0
        self.shares = FairShares(per_player, per_address)
        # Jobs not yet handed to a worker, per address block, blocks in turn order.
        self._waiting: OrderedDict[str, deque[tuple[AIJob, asyncio.Future[Any]]]] = OrderedDict()
        # Called with each finished job, its seconds waiting for a worker and running.
        self.job_observers: list[Callable[[AIJob, float, float], None]] = []

    def _lane_executors(self) -> list[concurrent.futures.Executor]:
        if not self._lanes:
            count = max(1, self.workers)
            if self._executor is not None:
                self._lanes = [self._executor] * count
            else:
                context = multiprocessing.get_context("spawn")
                self._lanes = [
                    concurrent.futures.ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=context,
                        initializer=_warm_up,
                        initargs=(os.getpid(),),
                    )
                    for _ in range(count)
                ]
        return self._lanes

    def _lane_for(self, job: AIJob) -> int:
        """The free lane for ``job``: its game's last one if free, else the first free one."""
        lanes = len(self._lane_executors())
        last = self._served.get(job.game) if job.game else None
        if last is not None and last not in self._busy:
            lane = last
        else:
            lane = next(n for n in range(lanes) if n not in self._busy)
        if job.game:
            self._served[job.game] = lane
            self._served.move_to_end(job.game)
            while len(self._served) > REMEMBERED_GAMES:
                self._served.popitem(last=False)
        return lane

    async def start(self) -> None:
        """Nothing to start: the worker processes start with the first job."""

    async def submit(self, job: AIJob) -> Any:
        """Run ``job`` in a worker when its turn comes and return its answer.

        Raises :class:`AIBusyError` when the pool is full or the job's player or address has
        its share already, or the job's own exception.
        """
        if self.pending >= self.max_jobs:
            raise AIBusyError("the AI is busy; retrying")
        block = CLIENT_BLOCK.get()
        try:
            self.shares.take(job.owner, block)
        except AIBusyError:
            await asyncio.sleep(OVER_SHARE_WAIT_SECONDS)
            raise
        self.pending += 1
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = (job, answer)
        self._waiting.setdefault(block, deque()).append(entry)
        try:
            self._dispatch()
            return await answer
        finally:
            self.pending -= 1
            self.shares.give_back(job.owner, block)
            queue = self._waiting.get(block)
            if queue is not None and entry in queue:  # given up before its turn came
                queue.remove(entry)
                if not queue:
                    del self._waiting[block]

    def _dispatch(self) -> None:
        """Hand waiting jobs to free workers, one address block after another."""
        loop = asyncio.get_running_loop()
        while self._waiting and len(self._busy) < max(1, self.workers):
            block, queue = self._waiting.popitem(last=False)
            job, answer = queue.popleft()
            if queue:
                self._waiting[block] = queue  # back at the end of the turn order
            if answer.done():
                continue
            lane = self._lane_for(job)
            self._busy.add(lane)
            submitted = time.time()
            running = loop.run_in_executor(self._lanes[lane], _timed, self.runner, job)
            running.add_done_callback(functools.partial(self._ended, lane, job, answer, submitted))

    def _ended(
        self,
        lane: int,
        job: AIJob,
        answer: asyncio.Future[Any],
        submitted: float,
        done: asyncio.Future[Any],
    ) -> None:
        self._busy.discard(lane)
        if not answer.done():
            if done.cancelled():
                answer.cancel()
            elif done.exception() is not None:
                answer.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                started, ended, result = done.result()
                for observe in self.job_observers:
                    observe(job, max(0.0, started - submitted), ended - started)
                answer.set_result(result)
        elif not done.cancelled():
            done.exception()  # retrieved: nobody waits for it any more
        self._dispatch()

    def queue_state(self) -> dict[str, Any]:
        """The shared queue's state (a pool of its own has no shared queue: empty)."""
        return {}

    def shutdown(self) -> None:
        """Cancel the waiting jobs and stop the workers, in the middle of a search too: a
        stopping server reads no answer, so a worker left computing would only burn CPU
        (an analysis position computed 45 min after SIGTERM)."""
        lanes, self._lanes, self._executor = self._lanes, [], None
        for executor in dict.fromkeys(lanes):  # each once (a given executor is every lane)
            # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14
            # (``terminate_workers``): its processes are in ``_processes``.
            processes = list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                with contextlib.suppress(Exception):
                    process.terminate()

    async def close(self) -> None:
        """Release connections after :meth:`shutdown` (a pool of its own has none)."""
