"""The shared AI queue: AI jobs go through Redis to ``chuhan ai-worker`` processes.

With ``CHUHAN_AI_SHARED=1`` (and ``REDIS_URL``) a web instance does not search itself: its
:class:`SharedAIPool` puts each :class:`~.ai.pool.AIJob` (plain data) on one Redis queue named after
``CHUHAN_REDIS_PREFIX``, and any number of worker processes, on any machine, take jobs from it
one at a time. So the engine's CPU scales apart from the web instances. The queue is saq's
(``saq.queue.redis``): jobs wait in a Redis list, a worker moves a job to the "active" list as
it takes it, and the caller reads the job's state until it has ended.

What may go wrong, and what happens then:

- The queue holds ``max_jobs`` (``CHUHAN_AI_QUEUE``) jobs waiting or running, over every
  instance: :meth:`SharedAIPool.submit` raises :class:`~.ai.pool.AIBusyError`; the game service
  tells the player and retries (``ai_retry_seconds``).
- No worker is running (none has said so in the last seconds): :class:`~.ai.pool.AIBusyError`
  too, so the AI's move is late, not lost, and a hint is refused rather than left hanging.
  A job queued while workers ran waits in Redis for the next one.
- A worker dies mid-job (SIGKILL, a lost machine): the job's heartbeat stops; after
  ``HEARTBEAT_SECONDS`` a live worker's sweep puts it back on the queue and another worker
  runs it, up to ``ATTEMPTS`` times in all, after which the caller gets :class:`AIJobError`
  (the service retries that too). The answer is applied once whatever happens: the service
  plays a move only on the position it was computed for (SPEC Z4).
- The job raises in the worker: the caller gets :class:`AIJobError` with the worker's error.
- One player (or address block) already has ``per_player`` (``per_address``) jobs waiting or
  running, over every instance: :class:`~.ai.pool.AIBusyError` for that player alone (the counts
  are Redis keys that expire, so an instance that dies mid-job leaks nothing for long).

Identical jobs share one queue entry (the job's key is a hash of its content), so a game
whose AI move is asked for again (a restarted instance, a second instance) waits for the same
search instead of starting another.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import logging.config
import multiprocessing
import multiprocessing.process
import os
import signal
import socket
import time
from typing import Any

import redis
import redis.asyncio
from saq import Job, Status, Worker
from saq.job import TERMINAL_STATUSES
from saq.queue.redis import RedisQueue
from saq.types import Context

from ..addresses import CLIENT_BLOCK
from ..settings import Settings
from .pool import (
    OVER_SHARE_WAIT_SECONDS,
    AIBusyError,
    AIJob,
    AIPool,
    die_with_parent,
    run_job,
)

log = logging.getLogger("chuhan.ai")

FUNCTION = "chuhan.ai"
HEARTBEAT_SECONDS = 3  # a running job not heard of for this long is taken for lost
BEAT_SECONDS = 1.0  # how often a worker says it still runs its job
SWEEP_SECONDS = 2  # how often (some) worker looks for lost jobs
ABORT_WAIT_SECONDS = 1.0  # how long a sweep waits for a lost job's worker to give it up
ATTEMPTS = 3  # runs of one job before the caller is told it failed
JOB_TIMEOUT_SECONDS = 300  # far above any level's budget: a search that hangs is retried
RESULT_SECONDS = 60  # how long a finished job's answer stays in Redis
POLL_FIRST_SECONDS = 0.01  # the caller reads its job's state this soon after queueing it,
POLL_SECONDS = 0.1  # then less and less often, down to this
GRACE_SECONDS = 30  # a stopping worker finishes its job first, for at most this long
SHARE_SECONDS = JOB_TIMEOUT_SECONDS + 60  # a share count outlives any job it counts


class AIJobError(Exception):
    """An AI job failed in its worker, or was lost with its worker ``ATTEMPTS`` times."""


def queue_name(prefix: str) -> str:
    """The shared queue of a deployment: its Redis keys start with ``saq:<prefix>:ai``."""
    return f"{prefix}:ai"


def job_data(job: AIJob) -> dict[str, Any]:
    """``job`` as JSON-ready plain data (what travels through Redis)."""
    data = dataclasses.asdict(job)
    data["moves"] = list(job.moves)
    return data


def job_from_data(data: dict[str, Any]) -> AIJob:
    """The :class:`AIJob` that :func:`job_data` wrote."""
    return AIJob(**{**data, "moves": tuple(data.get("moves", ()))})


def job_key(data: dict[str, Any]) -> str:
    """One key per distinct job: identical requests share a queue entry."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class _Queue(RedisQueue):
    """saq's Redis queue, with two changes: a sweep waits only ``ABORT_WAIT_SECONDS`` for a
    lost job's worker (ours are dead, not slow: a late duplicate answer is harmless), and a
    worker that cannot reach Redis waits a second before trying again instead of spinning."""

    async def sweep(self, lock: int = 60, abort: float = 5.0) -> list[str]:
        return await super().sweep(lock, abort=ABORT_WAIT_SECONDS)

    async def dequeue(self, timeout: float = 0.0, poll_interval: float = 0.0) -> Job | None:
        try:
            return await super().dequeue(timeout, poll_interval)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            log.warning("AI worker cannot reach Redis; retrying", extra={"error": str(exc)})
            await asyncio.sleep(1.0)
            return None


def _open_queue(redis_url: str, name: str) -> _Queue:
    return _Queue(redis.asyncio.Redis.from_url(redis_url), name=name)


class SharedAIPool(AIPool):
    """An :class:`AIPool` whose jobs run in ``chuhan ai-worker`` processes, through Redis.

    ``workers`` is the number of worker processes this instance runs itself on the shared
    queue (0: none, every search runs elsewhere); ``max_jobs`` bounds the shared queue (jobs
    waiting or running, over every instance).
    """

    shared = True

    def __init__(
        self,
        redis_url: str,
        prefix: str,
        max_jobs: int,
        workers: int = 0,
        per_player: int | None = None,
        per_address: int | None = None,
        analysis_engine: str | None = None,
    ) -> None:
        super().__init__(workers, max_jobs, per_player=per_player, per_address=per_address)
        self.redis_url = redis_url
        self.analysis_engine = analysis_engine  # for this instance's own workers
        self.name = queue_name(prefix)
        self._queue: _Queue | None = None
        self._stats = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self._local: list[multiprocessing.process.BaseProcess] = []

    def _open(self) -> _Queue:
        if self._queue is None:  # on first use: the client belongs to the running loop
            self._queue = _open_queue(self.redis_url, self.name)
        return self._queue

    async def start(self) -> None:
        """Start this instance's own worker processes on the shared queue (if any)."""
        self._local = [
            _spawn_worker(self.redis_url, self.name, self.analysis_engine)
            for _ in range(self.workers)
        ]

    async def submit(self, job: AIJob) -> Any:
        """Queue ``job`` for a worker and return its answer (it may wait for a worker).

        Raises :class:`~.ai.pool.AIBusyError` when the shared queue is full or no worker runs,
        :class:`AIJobError` when the job failed in its worker or was lost with its workers
        ``ATTEMPTS`` times, and Redis errors.
        """
        queue = self._open()
        data = job_data(job)
        key = job_key(data)
        shares = await self._take_shares(queue, job.owner, CLIENT_BLOCK.get())
        self.pending += 1
        try:
            submitted = time.time()
            async with queue.redis.pipeline(transaction=False) as pipe:
                pipe.zscore(queue.namespace("incomplete"), queue.job_id(key))
                pipe.zcard(queue.namespace("incomplete"))
                pipe.zcount(queue.namespace("stats"), int(submitted * 1000), "+inf")
                queued_already, jobs, workers = await pipe.execute()
            if queued_already is None:  # an identical job already queued is joined, not refused
                if jobs >= self.max_jobs:
                    raise AIBusyError("the AI is busy; retrying")
                if not workers:
                    raise AIBusyError("no AI worker is running; retrying")
            entry = Job(
                FUNCTION,
                kwargs={"job": data},
                key=key,
                timeout=JOB_TIMEOUT_SECONDS,
                heartbeat=HEARTBEAT_SECONDS,
                retries=ATTEMPTS,
                ttl=RESULT_SECONDS,
            )
            await queue.enqueue(entry)  # None when an identical job is already queued
            done = await self._finished(queue, key)
            if done.status != Status.COMPLETE:
                reason = (done.error or "").strip().splitlines()[-1:] or ["no reason given"]
                raise AIJobError(f"the AI job was {done.status.value}: {reason[0]}")
            outcome = done.result or {}
            if "error" in outcome:
                raise AIJobError(str(outcome["error"]))
            started, ended = done.started / 1000, done.completed / 1000
            for observe in self.job_observers:
                observe(job, max(0.0, started - submitted), max(0.0, ended - started))
            return outcome["answer"]
        finally:
            self.pending -= 1
            if shares:
                with contextlib.suppress(redis.RedisError, OSError):  # they expire anyway
                    await self._give_back(queue, shares)

    async def _take_shares(self, queue: _Queue, owner: str, block: str) -> list[str]:
        """Count a job against its player and address block in Redis (every instance sees
        the counts); returns the keys counted. Raises AIBusyError when either has its share."""
        wanted = [
            (f"saq:{self.name}:share:player:{owner}", self.shares.per_player, "you"),
            (f"saq:{self.name}:share:address:{block}", self.shares.per_address, "your network"),
        ]
        counted = [(k, limit, who) for k, limit, who in wanted if k[-1] != ":" and limit]
        if not counted:
            return []
        async with queue.redis.pipeline(transaction=False) as pipe:
            for share, _, _ in counted:
                pipe.incr(share)
                pipe.expire(share, SHARE_SECONDS)
            values = (await pipe.execute())[::2]
        over = [who for (_, top, who), value in zip(counted, values, strict=True) if value > top]
        shares = [share for share, _, _ in counted]
        if over:
            await self._give_back(queue, shares)
            await asyncio.sleep(OVER_SHARE_WAIT_SECONDS)
            raise AIBusyError(f"{over[0]} already have the AI thinking; retry in a moment")
        return shares

    @staticmethod
    async def _give_back(queue: _Queue, shares: list[str]) -> None:
        async with queue.redis.pipeline(transaction=False) as pipe:
            for share in shares:
                pipe.decr(share)
            await pipe.execute()

    async def _finished(self, queue: _Queue, key: str) -> Job:
        """The job once it has ended, however long that takes.

        Read every ``POLL_SECONDS`` at most (sooner at first: most jobs are short), not
        heard through saq's pub/sub listener, which spins on a lost Redis connection.
        """
        delay = POLL_FIRST_SECONDS
        while True:
            stored = await queue.job(key)
            if stored is None:
                raise AIJobError("the AI job disappeared from Redis")
            if stored.status in TERMINAL_STATUSES:
                return stored
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, POLL_SECONDS)

    def queue_state(self) -> dict[str, Any]:
        """The shared queue now (blocking: reads Redis): jobs waiting and running, live
        worker processes, and how long the oldest waiting job has waited."""
        queued_key, active_key = f"saq:{self.name}:queued", f"saq:{self.name}:active"
        now_ms = int(time.time() * 1000)
        with self._stats.pipeline(transaction=False) as pipe:
            pipe.llen(queued_key)
            pipe.llen(active_key)
            pipe.zcount(f"saq:{self.name}:stats", now_ms, "+inf")
            pipe.lindex(queued_key, 0)
            queued, running, workers, oldest = pipe.execute()
        waited = 0.0
        stored: Any = self._stats.get(oldest) if oldest else None
        if stored:
            waited = max(0.0, (now_ms - int(json.loads(stored).get("queued", now_ms))) / 1000)
        return {
            "queued": int(queued),
            "running": int(running),
            "workers": int(workers),
            "oldest_wait_seconds": round(waited, 3),
        }

    def shutdown(self) -> None:
        for process in self._local:
            process.terminate()  # SIGTERM: it finishes (or hands back) its job and exits
        for process in self._local:
            process.join(timeout=2)
            if process.is_alive():
                process.kill()
        self._local = []

    async def close(self) -> None:
        if self._queue is not None:
            with contextlib.suppress(Exception):
                await self._queue.disconnect()
            self._queue = None
        self._stats.close()


def pool_for(settings: Settings) -> AIPool:
    """The AI pool that ``settings`` ask for: the shared queue or a pool of its own.

    Raises ValueError when the shared queue is asked for without ``REDIS_URL``.
    """
    per_player, per_address = settings.ai_per_player, settings.ai_per_address
    if not settings.ai_shared:
        return AIPool(
            settings.ai_workers,
            settings.ai_queue,
            runner=functools.partial(run_job, analysis_engine=settings.analysis_engine),
            per_player=per_player,
            per_address=per_address,
        )
    if not settings.redis_url:
        raise ValueError("CHUHAN_AI_SHARED=1 needs REDIS_URL: the shared AI queue lives in Redis")
    return SharedAIPool(
        settings.redis_url,
        settings.redis_prefix,
        settings.ai_queue,
        settings.ai_workers,
        per_player=per_player,
        per_address=per_address,
        analysis_engine=settings.analysis_engine,
    )


# ---------------------------------------------------------------------- the worker side


async def _run(
    ctx: Context, *, job: dict[str, Any], analysis_engine: str | None = None
) -> dict[str, Any]:
    """One job, in a thread (the loop keeps beating); an error becomes the job's answer so
    that the caller gets it at once (retries are for lost workers, not for failing jobs)."""
    entry = ctx["job"]
    beating = asyncio.create_task(_beat(entry))
    try:
        answer = await asyncio.to_thread(run_job, job_from_data(job), analysis_engine)
    except Exception as exc:
        log.exception("AI job failed", extra={"job": entry.key})
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        beating.cancel()
    return {"answer": answer}


async def _beat(entry: Job) -> None:
    while True:
        await asyncio.sleep(BEAT_SECONDS)
        try:
            await entry.update()
        except Exception as exc:  # Redis away a moment: the next beat may pass
            log.warning("AI job heartbeat failed", extra={"job": entry.key, "error": str(exc)})


async def _watch_parent(worker: Worker[Context], parent: int | None) -> None:
    """Stop when the process that started this one is gone (so no worker outlives it)."""
    while parent is not None:
        await asyncio.sleep(1.0)
        if os.getppid() != parent:
            log.warning("AI worker's parent is gone; stopping")
            worker.event.set()
            return


async def _work(
    redis_url: str, name: str, parent: int | None, analysis_engine: str | None = None
) -> None:
    queue = _open_queue(redis_url, name)
    worker: Worker[Context] = Worker(
        queue,
        functions=[(FUNCTION, functools.partial(_run, analysis_engine=analysis_engine))],
        id=f"{socket.gethostname()}:{os.getpid()}",
        concurrency=1,  # searches are CPU-bound: one per process
        timers={"sweep": SWEEP_SECONDS, "worker_info": 2, "abort": 1, "schedule": 1},
        dequeue_timeout=1.0,
        shutdown_grace_period_s=GRACE_SECONDS,
    )
    watcher = asyncio.create_task(_watch_parent(worker, parent))
    try:
        await worker.start()
    finally:
        watcher.cancel()
        with contextlib.suppress(Exception):  # stop counting as a live worker at once
            info = queue.namespace(f"worker_info:{worker.id}")
            await queue.redis.zrem(queue.namespace("stats"), info)
            await queue.redis.delete(info)
        with contextlib.suppress(Exception):
            await queue.disconnect()


def work(
    redis_url: str, name: str, parent: int | None = None, analysis_engine: str | None = None
) -> None:
    """One worker process: takes jobs from the queue ``name`` one at a time until SIGTERM or
    SIGINT (then it finishes its job), or until the process ``parent`` is gone (at once,
    killed by the kernel on Linux: its job goes back to the queue when its heartbeat stops)."""
    if parent is not None:
        die_with_parent(parent)  # Never outlive the server that started it
    _configure_logs()
    with contextlib.suppress(Exception):  # load the engine before the first job
        from ... import engine  # noqa: F401
    log.info("AI worker started", extra={"queue": name, "pid": os.getpid()})
    asyncio.run(_work(redis_url, name, parent, analysis_engine))
    log.info("AI worker stopped", extra={"pid": os.getpid()})


def _configure_logs() -> None:
    """JSON lines on stderr, as ``chuhan serve`` writes them; saq's own only from warnings."""
    from ..logs import log_config

    config = log_config()
    config["loggers"]["saq"] = {"handlers": ["stderr"], "level": "WARNING", "propagate": False}
    logging.config.dictConfig(config)


def _spawn_worker(
    redis_url: str, name: str, analysis_engine: str | None
) -> multiprocessing.process.BaseProcess:
    context = multiprocessing.get_context("spawn")
    process = context.Process(
        target=work,
        args=(redis_url, name, os.getpid(), analysis_engine),
        name="chuhan-ai-worker",
        daemon=True,
    )
    process.start()
    return process


def run_workers(
    redis_url: str, prefix: str, workers: int, analysis_engine: str | None = None
) -> int:
    """``chuhan ai-worker``: keep ``workers`` worker processes on the shared queue, starting
    a new one when one dies, until SIGTERM or SIGINT. Returns the exit status.

    ``analysis_engine``: the UCI engine for xiangqi and janggi analyses (None: ours).
    """
    _configure_logs()
    name = queue_name(prefix)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    processes = [_spawn_worker(redis_url, name, analysis_engine) for _ in range(workers)]
    started = [time.monotonic()] * workers
    log.info("AI workers running", extra={"queue": name, "workers": workers})
    while not stopping:
        time.sleep(0.2)
        for slot, process in enumerate(processes):
            if stopping or process.is_alive() or time.monotonic() - started[slot] < 1.0:
                continue
            log.warning(
                "AI worker exited; starting another",
                extra={"pid": process.pid, "exitcode": process.exitcode},
            )
            processes[slot] = _spawn_worker(redis_url, name, analysis_engine)
            started[slot] = time.monotonic()
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=GRACE_SECONDS + 5)
        if process.is_alive():
            process.kill()
    return 0
