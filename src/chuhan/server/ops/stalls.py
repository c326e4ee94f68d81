"""Pauses of the event loop, for operators (``CHUHAN_STALL_LOG_MS``).

While one callback runs, every socket of the instance waits: a move sent then reaches its
opponent late by as much. :class:`StallWatch` logs each pause longer than its threshold
with when it happened, how long it lasted and where the loop was:

- a task wakes every ``tick`` seconds; when it wakes late by more than the threshold, the
  pause is logged (``"event loop stalled"``, ``stall_ms``, and ``cpu_ms``: the CPU the
  loop's thread spent meanwhile, so that a long callback tells itself from a wait);
- a thread looks at the loop's thread while a pause goes on and keeps the innermost frames
  it saw most often (``where``): the callback that held the loop, unless the loop was inside
  C code that holds the interpreter (the garbage collector, a big ``json.dumps``);
- the garbage collector's passes are timed (``gc.callbacks``); one longer than the
  threshold is logged (``"garbage collection"``, ``gc_ms``, ``generation``).

The bench (``bench/load.py``) watches its simulated clients with the same class.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

log = logging.getLogger("chuhan.stalls")
FRAMES_KEPT = 6


class StallWatch:
    """Logs pauses of the running loop longer than ``threshold`` seconds to ``report``
    (``report(message, fields)``; the ``chuhan.stalls`` logger by default)."""

    def __init__(
        self,
        threshold: float,
        tick: float = 0.01,
        report: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.threshold = threshold
        self.tick = tick
        self.report = report or (lambda message, fields: log.warning(message, extra=fields))
        self.stalls: list[tuple[float, float]] = []  # (time.time() at its end, seconds)
        self.collections: list[tuple[float, float, int]] = []  # (end, seconds, generation)
        self._beat = time.perf_counter()
        self._seen: collections.Counter[str] = collections.Counter()
        self._gc_started = 0.0
        self._thread_id = 0
        self._task: asyncio.Task[None] | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        """Start watching the running loop (from a coroutine on it)."""
        self._thread_id = threading.get_ident()
        self._beat = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._ticks())
        gc.callbacks.append(self._on_gc)
        threading.Thread(target=self._look, name="stall-watch", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    async def _ticks(self) -> None:
        cpu = time.thread_time()
        while True:
            await asyncio.sleep(self.tick)
            now, cpu_now = time.perf_counter(), time.thread_time()
            late = now - self._beat - self.tick
            self._beat = now
            busy, cpu = cpu_now - cpu, cpu_now
            if late > self.threshold:
                where = self._seen.most_common(1)[0][0] if self._seen else "?"
                self._seen.clear()
                self.stalls.append((time.time(), late))
                fields = {
                    "stall_ms": round(late * 1000, 1),
                    # The loop's thread's own CPU meanwhile: about ``stall_ms`` when a
                    # callback (or the collector) held it; far less when it waited for the
                    # processor or for another thread to let go of the interpreter.
                    "cpu_ms": round(busy * 1000, 1),
                    "where": where,
                }
                self.report("event loop stalled", fields)
            elif self._seen:
                self._seen.clear()

    def _look(self) -> None:
        """While the loop is late by half the threshold, note where its thread is."""
        while not self._stop.wait(self.tick):
            if time.perf_counter() - self._beat - self.tick < self.threshold / 2:
                continue
            frame = sys._current_frames().get(self._thread_id)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)[-FRAMES_KEPT:]
            where = " < ".join(
                f"{s.name} ({'/'.join(s.filename.rsplit('/', 2)[-2:])}:{s.lineno})"
                for s in reversed(stack)
            )
            self._seen[where] += 1

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        spent = time.perf_counter() - self._gc_started
        self.collections.append((time.time(), spent, int(info["generation"])))
        if spent > self.threshold:
            self.report(
                "garbage collection",
                {
                    "gc_ms": round(spent * 1000, 1),
                    "generation": info["generation"],
                    "collected": info["collected"],
                },
            )
