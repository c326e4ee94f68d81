"""The caller's side of the shared AI queue (:mod:`.queue`): :class:`SharedAIPool` sends a web
instance's AI jobs through Redis to ``chuhan ai-worker`` processes and waits for their answers;
:func:`pool_for` picks it or a pool of the instance's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import multiprocessing.process
import time
from typing import Any

import redis
from saq import Job, Status
from saq.job import TERMINAL_STATUSES

from ..addresses import CLIENT_BLOCK
from ..settings import Settings
from .pool import (
    OVER_SHARE_WAIT_SECONDS,
    AIBusyError,
    AIJob,
    AIPool,
    run_job,
)
from .queue import (
    ATTEMPTS,
    FUNCTION,
    HEARTBEAT_SECONDS,
    JOB_TIMEOUT_SECONDS,
    AIJobError,
    JobQueue,
    job_data,
    job_key,
    open_queue,
    queue_name,
)
from .worker import spawn_worker

RESULT_SECONDS = 60  # how long a finished job's answer stays in Redis
POLL_FIRST_SECONDS = 0.01  # the caller reads its job's state this soon after queueing it,
POLL_SECONDS = 0.1  # then less and less often, down to this
SHARE_SECONDS = JOB_TIMEOUT_SECONDS + 60  # a share count outlives any job it counts


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
        self._queue: JobQueue | None = None
        self._stats = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self._local: list[multiprocessing.process.BaseProcess] = []

    def _open(self) -> JobQueue:
        if self._queue is None:  # on first use: the client belongs to the running loop
            self._queue = open_queue(self.redis_url, self.name)
        return self._queue

    async def start(self) -> None:
        """Start this instance's own worker processes on the shared queue (if any)."""
        self._local = [
            spawn_worker(self.redis_url, self.name, self.analysis_engine)
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

    async def _take_shares(self, queue: JobQueue, owner: str, block: str) -> list[str]:
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
    async def _give_back(queue: JobQueue, shares: list[str]) -> None:
        async with queue.redis.pipeline(transaction=False) as pipe:
            for share in shares:
                pipe.decr(share)
            await pipe.execute()

    async def _finished(self, queue: JobQueue, key: str) -> Job:
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
