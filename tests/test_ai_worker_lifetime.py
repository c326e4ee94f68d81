"""AI workers never outlive their server (SPEC Z7).

A real ``chuhan serve`` (subprocess, SQLite, one AI worker): killed with SIGKILL, its worker
processes end with it; stopped with SIGTERM while an analysis computes, it stops at once and
so do its workers (the analysis stays queued, to go on when asked after the restart).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rooms_client import ServerProcess, server_environment

pytestmark = pytest.mark.timeout(120)
GONE_WITHIN_SECONDS = 30.0  # a bound on the wait, not a timing claim: polled until gone
CANNON_MATE = ["h3h5", "d10e9", "h5g5", "g7g6", "g5g10"]


def _children() -> dict[int, list[int]]:
    """Every live process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(what)


@contextlib.contextmanager
def _server(tmp_path: Path, **env: str) -> Iterator[tuple[ServerProcess, set[int]]]:
    """A started server and the set its worker processes go in; whatever of them is left
    running is killed afterwards (by pid)."""
    environment = server_environment(**{"CHUHAN_AI_WORKERS": "1", **env})
    process = ServerProcess(tmp_path, environment)
    process.start()
    workers: set[int] = set()
    try:
        yield process, workers
    finally:
        assert process.process is not None
        left = _descendants(process.process.pid) | workers
        process.stop(timeout=5)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _started_workers(process: ServerProcess, workers: set[int]) -> set[int]:
    """The server's descendants (its AI worker and multiprocessing's helper) once they have
    started (polled for)."""
    assert process.process is not None
    pid = process.process.pid
    _wait_for(lambda: _descendants(pid), GONE_WITHIN_SECONDS, "no AI worker started")
    workers.update(_descendants(pid))
    return workers


def test_a_sigkilled_server_takes_its_ai_workers_with_it_z7(tmp_path):
    with _server(tmp_path) as (process, workers), httpx.Client(base_url=process.url) as client:
        client.get("/api/me").raise_for_status()  # the first visit: the identity (Z6)
        body = {"kind": "ai", "level": "beginner", "color": "black"}
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text  # the AI (red) moves: a worker runs
        _started_workers(process, workers)
        assert process.process is not None
        os.kill(process.process.pid, signal.SIGKILL)  # the server alone, not its group
        process.process.wait()
        _wait_for(
            lambda: not any(_alive(pid) for pid in workers),
            GONE_WITHIN_SECONDS,
            f"AI workers outlived their SIGKILLed server: {sorted(workers)}",
        )


def test_sigterm_during_an_analysis_stops_the_server_and_its_workers_z7(tmp_path):
    # Each position of this analysis takes the worker minutes: it must be stopped, not awaited.
    slow = {"CHUHAN_ANALYSIS_NODES": "50000000"}
    with (
        _server(tmp_path, **slow) as (process, workers),
        httpx.Client(base_url=process.url) as client,
    ):
        client.get("/api/me").raise_for_status()  # the first visit: the identity (Z6)
        game = client.post("/api/games", json={"kind": "local"}).json()
        for ply, move in enumerate(CANNON_MATE):
            moved = client.post(f"/api/games/{game['id']}/moves", json={"ply": ply, "move": move})
            assert moved.status_code == 200, moved.text
        started = client.post(f"/api/games/{game['id']}/analysis")
        assert started.status_code == 202, started.text
        _started_workers(process, workers)
        assert process.process is not None
        process.process.terminate()
        try:
            process.process.wait(timeout=GONE_WITHIN_SECONDS)
        except subprocess.TimeoutExpired:
            raise AssertionError("the server did not stop on SIGTERM during an analysis") from None
        _wait_for(
            lambda: not any(_alive(pid) for pid in workers),
            GONE_WITHIN_SECONDS,
            f"an AI worker computed on after its server stopped: {sorted(workers)}",
        )
