"""The shared AI queue: AI jobs go through Redis to ``chuhan ai-worker`` processes.

With ``CHUHAN_AI_SHARED=1`` (and ``REDIS_URL``) a web instance does not search itself: its
:class:`~.shared_pool.SharedAIPool` puts each :class:`~.ai.pool.AIJob` (plain data) on one
Redis queue named after ``CHUHAN_REDIS_PREFIX``, and any number of worker processes, on any
machine, take jobs from it one at a time. So the engine's CPU scales apart from the web
instances. The queue is saq's (``saq.queue.redis``): jobs wait in a Redis list, a worker moves
a job to the "active" list as it takes it, and the caller reads the job's state until it has
ended.

What may go wrong, and what happens then:

- The queue holds ``max_jobs`` (``CHUHAN_AI_QUEUE``) jobs waiting or running, over every
  instance: :meth:`~.shared_pool.SharedAIPool.submit` raises :class:`~.ai.pool.AIBusyError`;
  the game service tells the player and retries (``ai_retry_seconds``).
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

This module holds what both sides share: the queue, its job's contract and what travels
through Redis. The caller's side is :mod:`.shared_pool`, the workers' :mod:`.worker`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
from typing import Any

import redis
import redis.asyncio
from saq import Job
from saq.queue.redis import RedisQueue

from .pool import AIJob

log = logging.getLogger("chuhan.ai")

FUNCTION = "chuhan.ai"
HEARTBEAT_SECONDS = 3  # a running job not heard of for this long is taken for lost
BEAT_SECONDS = 1.0  # how often a worker says it still runs its job
ABORT_WAIT_SECONDS = 1.0  # how long a sweep waits for a lost job's worker to give it up
SWEEP_SECONDS = 2  # how often each worker looks for lost jobs (one sweep at a time in all)
ATTEMPTS = 3  # runs of one job before the caller is told it failed
JOB_TIMEOUT_SECONDS = 300  # far above any level's budget: a search that hangs is retried


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


class JobQueue(RedisQueue):
    """saq's Redis queue, with three changes: a sweep waits only ``ABORT_WAIT_SECONDS`` for a
    lost job's worker (ours are dead, not slow: a late duplicate answer is harmless); the lock
    that keeps two workers from sweeping at once lasts one sweep period, not saq's default
    minute (during which nobody swept, so a job lost just after a sweep waited a minute); and
    a worker that cannot reach Redis waits a second before trying again instead of spinning."""

    async def sweep(self, lock: int = SWEEP_SECONDS - 1, abort: float = 5.0) -> list[str]:
        return await super().sweep(min(lock, SWEEP_SECONDS - 1), abort=ABORT_WAIT_SECONDS)

    async def dequeue(self, timeout: float = 0.0, poll_interval: float = 0.0) -> Job | None:
        try:
            return await super().dequeue(timeout, poll_interval)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            log.warning("AI worker cannot reach Redis; retrying", extra={"error": str(exc)})
            await asyncio.sleep(1.0)
            return None


def open_queue(redis_url: str, name: str) -> JobQueue:
    return JobQueue(redis.asyncio.Redis.from_url(redis_url), name=name)
