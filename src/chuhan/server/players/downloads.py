"""Downloading all of one's games without stalling anyone (SPEC Z7, B3).

Writing 500 games of 1,000 half-moves is seconds of CPU and megabytes of objects. In a thread
of the server it held the interpreter lock and the event loop waited (``/health`` worst
275 ms for one download, 597 ms with four; memory kept after). So each download is

- written by a process of its own (spawned, one task each: the memory it used goes back to
  the system when it exits; at a lower priority than the server's, so that the event loop
  gets a shared core first), at most ``workers`` at once, the rest waiting their turn; the
  process reads the games from the database itself and writes the file, which the server only
  streams (and deletes once sent);
- one at a time per player and per address block on an instance (a second one is refused
  with 429 ``download_running`` while the first is written);
- counted in an hourly budget per player, address block and IPv6 /48 (``too_many_downloads``,
  :mod:`..limits.budgets`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ..budget import TooManyError

T = TypeVar("T")
WORKERS = 2  # processes writing downloads at once (the machine's cores); others wait
RUNNING_RETRY_SECONDS = 10
NICENESS = 10  # how much lower the writing processes' priority is than the server's


class DownloadRunner:
    """Runs download jobs in processes of their own; keeps who has one under way."""

    def __init__(self, folder: Path, workers: int = WORKERS) -> None:
        self.folder = folder
        self.workers = workers
        self.running: set[str] = set()  # "player:<id>" and "address:<block>" under way
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def start(self) -> None:
        """An empty folder for the files (a file left by a stopped server is deleted)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    @contextmanager
    def one_at_a_time(self, player_id: str, block: str) -> Iterator[None]:
        """Marks the player's and the address block's download under way. Raises
        TooManyError ``download_running`` when one of them has one already."""
        keys = {f"player:{player_id}"} | ({f"address:{block}"} if block else set())
        if keys & self.running:
            raise TooManyError(
                "download_running",
                "a download of your games is being written; wait for it to finish",
                RUNNING_RETRY_SECONDS,
            )
        self.running |= keys
        try:
            yield
        finally:
            self.running -= keys

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in a new process (importable ``job``, picklable ``args``)."""
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=1,  # its memory goes back with the process
                # Below the server's own priority: a core the download shares with the event
                # loop goes to the loop first.
                initializer=os.nice,
                initargs=(NICENESS,),
            )
        return await asyncio.get_running_loop().run_in_executor(self._pool, job, *args)
