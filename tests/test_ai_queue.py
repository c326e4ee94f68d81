"""The shared AI queue: web instances with ``CHUHAN_AI_SHARED=1`` and no engine of
their own, and ``chuhan ai-worker`` processes that run the searches, meeting in Redis.

Real processes on the real Redis and PostgreSQL, each test on its own Redis prefix (so its own
queue): a job from the web side is answered by a separately started worker with a legal move;
an error in the worker reaches the caller; a full queue answers "busy"; two web instances play
an AI game through the worker; with no worker the AI's move waits and is played once a worker
starts; a worker killed with SIGKILL mid-search loses nothing and the move is played once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx
import pytest
import redis
from saq import Job

from chuhan.rules import make_board
from chuhan.server.ai.pool import AIBusyError, AIJob, JobKind, run_job
from chuhan.server.ai.queue import (
    FUNCTION,
    HEARTBEAT_SECONDS,
    AIJobError,
    open_queue,
    queue_name,
)
from chuhan.server.ai.shared_pool import SharedAIPool
from chuhan.server.games.service import ai_seed
from rooms_client import running_server
from test_scale_support import REDIS_URL, Cluster, Instance, cluster, game_socket

pytestmark = pytest.mark.timeout(120)

T = TypeVar("T")
THINK_SECONDS = 3.0  # the advanced AI's budget in the web tests (CHUHAN_AI_MOVETIME)


def wait_until(check: Callable[[], T], timeout: float = 30.0, every: float = 0.05) -> T:
    """``check()``'s first truthy value, polled; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)


class Workers:
    """``chuhan ai-worker --workers N`` on a prefix's queue, in its own process group."""

    def __init__(self, prefix: str, count: int, log_path: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHUHAN_")}
        env.update(REDIS_URL=REDIS_URL, CHUHAN_REDIS_PREFIX=prefix)
        command = [sys.executable, "-m", "chuhan.cli", "ai-worker", "--workers", str(count)]
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen(
                command, env=env, stdout=log, stderr=log, start_new_session=True
            )
        # Ready once every worker has registered on the queue (as the web side sees them).
        with redis.Redis.from_url(REDIS_URL) as client:
            stats = f"saq:{queue_name(prefix)}:stats"
            wait_until(lambda: client.zcount(stats, int(time.time() * 1000), "+inf") >= count)

    def stop(self) -> None:
        """SIGTERM to the supervisor and its workers (they stop after their jobs)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        assert self.process.returncode == 0, self.log_path.read_text()


@contextlib.contextmanager
def workers(prefix: str, log_dir: Path, count: int = 1) -> Iterator[Workers]:
    running = Workers(prefix, count, log_dir / f"workers-{uuid.uuid4().hex[:6]}.log")
    try:
        yield running
    finally:
        running.stop()


class Queue:
    """A test's look into its queue's Redis keys (saq's layout under ``saq:<prefix>:ai``)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.name = queue_name(prefix)
        self.redis = redis.Redis.from_url(REDIS_URL)

    def jobs(self, state: str) -> list[dict[str, Any]]:
        """The stored jobs in ``state`` (``queued`` or ``active``)."""
        ids = self.redis.lrange(f"saq:{self.name}:{state}", 0, -1)
        stored = [self.redis.get(job_id) for job_id in ids]
        return [json.loads(raw) for raw in stored if raw]

    def running_pid(self, seed: int) -> int | None:
        """The pid of the worker process running the job with this seed now, if any."""
        for job in self.jobs("active"):
            if job["kwargs"]["job"]["seed"] == seed and job.get("status") == "active":
                return int(str(job["worker_id"]).rsplit(":", 1)[1])
        return None

    def finished(self, seed: int) -> list[dict[str, Any]]:
        """Finished jobs with this seed (their records stay a minute after the end)."""
        found = []
        for job_id in self.redis.scan_iter(f"saq:job:{self.name}:*"):
            job = json.loads(self.redis.get(job_id) or "{}")
            if job.get("status") == "complete" and job["kwargs"]["job"]["seed"] == seed:
                found.append(job)
        return found

    def drop(self) -> None:
        for pattern in (f"saq:{self.name}:*", f"saq:job:{self.name}:*"):
            for key in self.redis.scan_iter(pattern):
                self.redis.delete(key)
        self.redis.close()


def fresh_queue() -> Queue:
    return Queue(f"chuhan-test-aiq-{uuid.uuid4().hex[:12]}")


@pytest.fixture
def queue() -> Iterator[Queue]:
    """A fresh queue (its own Redis prefix) with no worker, dropped afterwards."""
    opened = fresh_queue()
    try:
        yield opened
    finally:
        opened.drop()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Queue]:
    """A fresh queue with one ``chuhan ai-worker`` process started apart (as on another
    machine), dropped afterwards."""
    opened = fresh_queue()
    try:
        with workers(opened.prefix, tmp_path_factory.mktemp("aiq-workers")):
            yield opened
    finally:
        opened.drop()


def submit(queue: Queue, *jobs: AIJob, max_jobs: int = 16) -> list[Any]:
    """Submit ``jobs`` at once from a web side's pool; their answers or exceptions, and the
    observed (waited, ran) of each answered job."""

    async def run() -> list[Any]:
        pool = SharedAIPool(REDIS_URL, queue.prefix, max_jobs, workers=0)
        try:
            return list(
                await asyncio.gather(*(pool.submit(job) for job in jobs), return_exceptions=True)
            )
        finally:
            pool.shutdown()
            await pool.close()

    return asyncio.run(run())


# ---------------------------------------------------------------------- the pool and a worker


def test_job_from_web_side_is_answered_by_a_separate_worker_with_a_legal_move(
    served: Queue,
) -> None:
    job = AIJob("move", "xiangqi", moves=("h3e3",), level="beginner", seed=7, side=1)
    [answer] = submit(served, job)
    board = make_board("xiangqi")
    board.push("h3e3")
    assert answer in set(board.legal_move_texts())


def test_an_error_in_the_worker_reaches_the_caller(served: Queue) -> None:
    bad = AIJob(cast(JobKind, "nonsense"), "xiangqi")
    good = AIJob("draw", "xiangqi", side=1)
    failed, answered = submit(served, bad, good)
    assert isinstance(failed, AIJobError)
    assert "unknown AI job kind 'nonsense'" in str(failed)
    assert answered is run_job(good)  # the other job in flight was answered as at home


def test_a_full_shared_queue_answers_busy_and_an_identical_job_joins_the_running_one(
    served: Queue,
) -> None:
    # Out of the opening book (which answers the start at once): a search of the full 1.5 s.
    long = AIJob("move", "xiangqi", level="advanced", seed=3, movetime=1.5, moves=("a1a2", "a10a9"))
    other = AIJob("move", "xiangqi", level="beginner", seed=4)

    async def run() -> tuple[BaseException | None, Any, Any]:
        pool = SharedAIPool(REDIS_URL, served.prefix, max_jobs=1, workers=0)
        running = asyncio.create_task(pool.submit(long))
        while not served.jobs("active"):
            await asyncio.sleep(0.02)
        refused = None
        try:
            await pool.submit(other)
        except AIBusyError as exc:
            refused = exc
        again = await pool.submit(long)  # the same request: joins the running job
        first = await running
        pool.shutdown()
        await pool.close()
        return refused, first, again

    refused, first, again = asyncio.run(run())
    assert isinstance(refused, AIBusyError)
    assert "busy" in str(refused)
    position = make_board("xiangqi")
    position.push_many(long.moves)
    assert first == again
    assert first in set(position.legal_move_texts())
    [job] = served.finished(seed=3)
    assert job["attempts"] == 1  # searched once for both


def test_with_no_worker_running_a_job_is_answered_busy(queue: Queue) -> None:
    [refused] = submit(queue, AIJob("hint", "xiangqi"))
    assert isinstance(refused, AIBusyError)
    assert "no AI worker is running" in str(refused)
    assert queue.jobs("queued") == []  # nothing left behind that nobody would run


def test_a_job_lost_just_after_a_sweep_is_put_back_by_the_next_sweep_not_a_minute_later(
    queue: Queue,
) -> None:
    """A worker's sweep runs every few seconds, but saq's sweep holds a lock for ``lock``
    seconds (60 by default) during which no worker sweeps: a job lost just after one sweep
    waited up to a minute for the next (a player's AI move late by a minute)."""

    async def run() -> tuple[list[str], list[str]]:
        jobs = open_queue(REDIS_URL, queue.name)
        try:
            await jobs.connect()
            first = await jobs.sweep()  # nothing to sweep; takes the sweep lock
            entry = Job(FUNCTION, kwargs={"job": {}}, key="lost", heartbeat=HEARTBEAT_SECONDS)
            await jobs.enqueue(entry)
            taken = await jobs.dequeue(timeout=1)
            assert taken is not None
            assert taken.key == "lost"
            # Its worker dies at once: no heartbeat from now on.
            await asyncio.sleep(HEARTBEAT_SECONDS + 1.0)
            return first, await jobs.sweep()
        finally:
            await jobs.disconnect()

    first, second = asyncio.run(run())
    assert first == []
    assert second == [f"saq:job:{queue.name}:lost"]
    assert [job["key"] for job in queue.jobs("queued")] == ["lost"]  # to be run again


# ---------------------------------------------------------------------- web instances


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two ``chuhan serve`` on one PostgreSQL schema and one Redis prefix, sending AI jobs to
    the shared queue and running no engine themselves."""
    with cluster(
        tmp_path_factory.mktemp("aiq"),
        ("a", "b"),
        CHUHAN_AI_SHARED="1",
        CHUHAN_AI_WORKERS="0",
        CHUHAN_AI_MOVETIME=str(THINK_SECONDS),
    ) as running:
        try:
            yield running
        finally:
            Queue(running.prefix).drop()


def new_ai_game(instance: Instance, level: str = "beginner") -> tuple[httpx.Client, str]:
    """An AI game where the player is red; the player's client and the game id."""
    owner = httpx.Client(base_url=instance.url, timeout=10)
    owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
    body = {"kind": "ai", "variant": "xiangqi", "level": level, "color": "red"}
    game = owner.post("/api/games", json=body)
    assert game.status_code == 201, game.text
    return owner, str(game.json()["id"])


def game_state(owner: httpx.Client, game_id: str) -> dict[str, Any]:
    return dict(owner.get(f"/api/games/{game_id}").json())


def assert_moves_logged_once(web: Cluster, game_id: str, count: int) -> list[str]:
    """SPEC Z4: the stored moves, each exactly once in the event log."""
    stored = web.sql("SELECT moves FROM games WHERE id = :g", g=game_id)[0][0]
    events = web.events(game_id)
    assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
    assert [p["move"] for _, kind, p in events if kind == "move"] == stored
    assert len(stored) == count
    return list(stored)


def test_two_web_instances_play_an_ai_game_through_the_worker(web: Cluster, tmp_path: Path) -> None:
    a, b = web.instances
    owner, game_id = new_ai_game(a)
    cookie = owner.cookies["chuhan_player"]
    with workers(web.prefix, tmp_path):
        with game_socket(a, game_id, cookie) as sock:
            with httpx.Client(base_url=b.url, cookies={"chuhan_player": cookie}) as other:
                answer = other.post(f"/api/games/{game_id}/moves", json={"ply": 0, "move": "h3e3"})
            assert answer.json()["type"] == "ack"
            reply = sock.wait_for(lambda m: m.get("type") == "move" and m["ply"] == 1, timeout=60)
            assert reply["by"] == "black"
        health = b.health()
        assert health["ai"]["workers"] == 0  # no engine in the web instance
        assert health["ai"]["shared"]["workers"] == 1
        metrics = a.metrics()
    assert 'chuhan_ai_shared_jobs{state="waiting"} 0.0' in metrics
    assert "chuhan_ai_shared_workers 1.0" in metrics
    assert 'chuhan_ai_job_seconds_count{kind="move",level="beginner"} 1.0' in b.metrics()
    moves = assert_moves_logged_once(web, game_id, 2)
    board = make_board("xiangqi")
    board.push("h3e3")
    assert moves[1] in set(board.legal_move_texts())


def test_without_a_worker_the_ai_move_waits_and_is_played_once_one_starts_Z4(
    web: Cluster, tmp_path: Path
) -> None:
    a, b = web.instances
    owner, game_id = new_ai_game(b)
    cookie = owner.cookies["chuhan_player"]
    with game_socket(a, game_id, cookie) as sock:
        assert a.health()["ai"]["shared"]["workers"] == 0
        moved = owner.post(f"/api/games/{game_id}/moves", json={"ply": 0, "move": "c4c5"})
        assert moved.json()["state"]["thinking"] is True
        # No worker: the player (on the other instance) is told the AI is busy, again and
        # again, while the move waits.
        wait_until(lambda: [m.get("type") for m in sock.messages].count("busy") >= 2)
        state = game_state(owner, game_id)
        assert state["ply"] == 1
        assert state["thinking"] is True
        with workers(web.prefix, tmp_path):
            reply = sock.wait_for(lambda m: m.get("type") == "move" and m["ply"] == 1, timeout=60)
    assert reply["by"] == "black"
    assert_moves_logged_once(web, game_id, 2)


def test_a_worker_killed_mid_search_loses_nothing_and_the_move_is_played_once_Z4(
    web: Cluster, tmp_path: Path
) -> None:
    a, _ = web.instances
    queue = Queue(web.prefix)
    owner, game_id = new_ai_game(a, level="advanced")  # a search of THINK_SECONDS
    with workers(web.prefix, tmp_path):
        # A first move the opening book does not answer (the master-games book answers
        # h3e3 at once): the AI searches, and its worker dies mid-search.
        owner.post(f"/api/games/{game_id}/moves", json={"ply": 0, "move": "a1a2"})
        pid = wait_until(lambda: queue.running_pid(seed=ai_seed(game_id, 1)))
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert game_state(owner, game_id)["ply"] == 1
        # The job is swept back onto the queue and a new worker (the supervisor replaced
        # the dead one) runs it again.
        wait_until(lambda: game_state(owner, game_id)["ply"] == 2, timeout=60)
        [job] = queue.finished(seed=ai_seed(game_id, 1))
    queue.redis.close()
    assert job["attempts"] == 2  # run twice: the first run died with its worker
    assert not job["worker_id"].endswith(f":{pid}")
    assert_moves_logged_once(web, game_id, 2)


def test_a_web_instance_with_workers_of_its_own_serves_the_shared_queue(
    queue: Queue, tmp_path: Path
) -> None:
    env = {
        "REDIS_URL": REDIS_URL,
        "CHUHAN_REDIS_PREFIX": queue.prefix,
        "CHUHAN_AI_SHARED": "1",
        "CHUHAN_AI_WORKERS": "1",
    }
    with running_server(tmp_path, **env) as url:
        owner = httpx.Client(base_url=url, timeout=10)
        owner.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
        wait_until(lambda: owner.get("/health").json()["ai"]["shared"]["workers"] == 1)
        body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
        game_id = owner.post("/api/games", json=body).json()["id"]
        owner.post(f"/api/games/{game_id}/moves", json={"ply": 0, "move": "h3e3"})
        wait_until(lambda: game_state(owner, game_id)["ply"] == 2)
    # The instance stopped: its worker stopped with it.
    assert SharedAIPool(REDIS_URL, queue.prefix, 1).queue_state()["workers"] == 0
