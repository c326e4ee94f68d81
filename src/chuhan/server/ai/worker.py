"""The workers' side of the shared AI queue (:mod:`.queue`): ``chuhan ai-worker`` keeps worker
processes that take AI jobs from Redis one at a time (:func:`run_workers`), and a web
instance may start some of its own (:func:`spawn_worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import logging.config
import multiprocessing
import multiprocessing.process
import os
import signal
import socket
import time
from typing import Any

from saq import Job, Worker
from saq.types import Context

from .pool import die_with_parent, run_job
from .queue import BEAT_SECONDS, FUNCTION, SWEEP_SECONDS, job_from_data, open_queue, queue_name

log = logging.getLogger("chuhan.ai")

GRACE_SECONDS = 30  # a stopping worker finishes its job first, for at most this long


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
    queue = open_queue(redis_url, name)
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


def spawn_worker(
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
    processes = [spawn_worker(redis_url, name, analysis_engine) for _ in range(workers)]
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
            processes[slot] = spawn_worker(redis_url, name, analysis_engine)
            started[slot] = time.monotonic()
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=GRACE_SECONDS + 5)
        if process.is_alive():
            process.kill()
    return 0
