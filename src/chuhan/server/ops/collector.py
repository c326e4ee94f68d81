"""The garbage collector of ``chuhan serve`` at thousands of sockets.

CPython's collector stops the event loop while it walks a generation, and its passes over
the older generations walk every object that has lived a while: at 5,000 sockets an instance
holds about 1.5 million (some 300 per socket: the socket's tasks and their coroutines, the
ASGI scope, uvicorn's protocol), a walk of a second during which no socket is served. Memory
is freed by reference counting; the collector is only for reference cycles. Even its young
passes grow long: CPython 3.11 counts allocations less deallocations, so while a server
replaces old objects with new ones (a game's record at every move) the count stays low and
the young generation grows unseen, until a "young" pass walks hundreds of thousands of
objects (608 and 686 ms in bench/load.py at 5,000 games, thresholds 50,000/20/100).

So the collector here walks young objects only. Every ``freeze_seconds`` (a quarter of a
second) the young generation is collected and what survived is frozen (``gc.freeze``: moved
out of the collector's sight at once, whatever its number), so that no pass walks more than
a quarter of a second's survivors. Those are many even so: a game's state is replaced at
every move and the new one lives until the next, so the young objects grow with the moves
per second, not the sockets (one pass over 5 s of them took 170-240 ms at 125 moves/s, one
over half a second 25-30 ms of CPU). A cycle that turns into garbage after it was frozen
(a closed socket leaves some 60 objects so: uvicorn's protocol, the transport, the request)
is freed by a full pass: everything is unfrozen, collected and frozen again once the
process's peak memory has grown by a quarter since the last full pass (CPython's own rule
for its full passes, in bytes), so garbage stays within a quarter of what lives. A full pass
is the one long pause left (0.3 to 2.2 s at up to 10,000 sockets): it comes while the
sockets' number grows, or after thousands of sockets have closed; each is logged
(``"full garbage collection"``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import resource
import time
from collections.abc import Callable

log = logging.getLogger("chuhan.collector")
# The automatic passes' thresholds between two freezes: a young pass every 10,000
# allocations (net of those freed), the middle one every 10 of those, the full one every 10
# middle ones; each walks only what is not frozen.
THRESHOLDS = (10_000, 10, 10)
FREEZE_SECONDS = 0.25
FULL_GROWTH = 1.25  # the peak memory grew by this factor since the last full pass


def peak_memory() -> int:
    """The process's peak resident memory (in the platform's unit: only ratios are used).
    Read by a system call: ``gc.get_freeze_count()`` walks every frozen object (0.3 s at a
    million)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class Collector:
    """Collects the young and freezes the survivors every ``freeze_seconds``; a full pass
    when ``memory()`` has grown by ``full_growth`` since the last one. :meth:`start` on the
    server's running loop."""

    def __init__(
        self,
        freeze_seconds: float = FREEZE_SECONDS,
        full_growth: float = FULL_GROWTH,
        memory: Callable[[], int] = peak_memory,
    ) -> None:
        self.freeze_seconds = freeze_seconds
        self.full_growth = full_growth
        self.memory = memory
        self.full_passes = 0
        self._after_full = 0  # memory() after the last full pass
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Freeze what exists (what importing and building the app made lives as long as
        the server), set the thresholds, and freeze the survivors from now on."""
        gc.collect()
        gc.freeze()
        self._after_full = self.memory()
        gc.set_threshold(*THRESHOLDS)
        self._schedule()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.freeze_seconds, self._freeze)

    def _freeze(self) -> None:
        gc.collect(0)  # the young garbage, before the survivors are frozen
        gc.freeze()
        if self.memory() > self._after_full * self.full_growth:
            self.full_pass()
        self._schedule()

    def full_pass(self) -> int:
        """Unfreeze, collect everything, freeze again; returns the objects collected."""
        started = time.perf_counter()
        before = self.memory()
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
        self._after_full = self.memory()
        self.full_passes += 1
        log.info(
            "full garbage collection",
            extra={
                "pause_ms": round((time.perf_counter() - started) * 1000, 1),
                "collected": collected,
                "peak_memory_before": before,
            },
        )
        return collected
