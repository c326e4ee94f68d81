"""``chuhan serve``'s garbage collector schedule (server/ops/collector.py): the objects
that survive are frozen out of the collector's walks, and the garbage cycles frozen with them
(a closed socket leaves some) are still freed, by a full pass once the frozen objects have
grown by a quarter in memory."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from chuhan.server.ops.collector import Collector


class Node:
    def __init__(self) -> None:
        self.itself = self  # a reference cycle: only the collector frees it


@pytest.fixture(autouse=True)
def restore_the_collector() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_a_frozen_garbage_cycle_is_freed_once_memory_grows_by_a_quarter() -> None:
    freed: list[bool] = []
    memory = [1000]  # the process's peak memory, as the collector reads it

    async def main() -> None:
        collector = Collector(freeze_seconds=0.01, memory=lambda: memory[0])
        collector.start()
        cycle = Node()
        weakref.finalize(cycle, freed.append, True)
        await asyncio.sleep(0.05)  # it survived: frozen
        del cycle  # garbage now (a socket closed), out of the young passes' sight
        gc.collect()
        assert not freed
        memory[0] = 1200  # new sockets, garbage: not yet a quarter more
        await asyncio.sleep(0.05)
        assert not freed
        assert collector.full_passes == 0
        memory[0] = 1300
        await asyncio.sleep(0.05)
        collector.stop()
        assert freed
        assert collector.full_passes == 1

    asyncio.run(main())


def test_young_garbage_cycles_are_freed_without_a_full_pass() -> None:
    freed: list[bool] = []

    async def main() -> None:
        collector = Collector(freeze_seconds=0.01, memory=lambda: 1000)
        collector.start()
        for _ in range(10):
            cycle = Node()  # short-lived: the young passes'
            weakref.finalize(cycle, freed.append, True)
            del cycle
            await asyncio.sleep(0.01)
        collector.stop()
        assert len(freed) == 10
        assert collector.full_passes == 0

    asyncio.run(main())
