"""Helpers for the scale-out tests: several real ``chuhan serve`` processes sharing one
PostgreSQL schema and one Redis channel (SPEC Z1–Z5 on several instances).

:class:`Cluster` owns a fresh schema and a fresh Redis channel prefix per run, so runs on the
shared services never see each other; it tags its database connections with an
``application_name`` and its Redis connections with a client name, so a test can cut exactly
its own connections.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import create_engine, text
from websockets.sync.client import connect

from rooms_client import Player, RoomSocket, ServerProcess, free_port

POSTGRES_URL = os.environ.get(
    "CHUHAN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("CHUHAN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


class Instance(ServerProcess):
    """One ``chuhan serve`` of the cluster, in its own process group (its AI workers too),
    with ``/metrics`` on its own operator port (as a deployment has it)."""

    def __init__(self, name: str, env: dict[str, str], log_dir: Path) -> None:
        self.ops_port = free_port()
        env = {**env, "CHUHAN_OPS_PORT": str(self.ops_port)}
        super().__init__(log_dir, env, log_dir / f"{name}.log", stop_whole_group=True)
        self.name = name

    def health(self) -> dict[str, Any]:
        return dict(httpx.get(f"{self.url}/health", timeout=5).json())

    def metrics(self) -> str:
        return httpx.get(f"http://127.0.0.1:{self.ops_port}/metrics", timeout=5).text


class Cluster:
    """Instances sharing a fresh PostgreSQL schema and a fresh Redis channel prefix."""

    def __init__(self, log_dir: Path, **env: str) -> None:
        self.run = uuid.uuid4().hex[:12]
        self.schema = f"scale_{self.run}"
        self.prefix = f"chuhan-test-{self.run}"
        self.app_name = f"chuhan_{self.run}"
        self.log_dir = log_dir
        self.instances: list[Instance] = []
        base = {k: v for k, v in os.environ.items() if not k.startswith(("CHUHAN_", "DATABASE"))}
        self.env = {
            **base,
            "DATABASE_URL": f"{POSTGRES_URL}?application_name={self.app_name}",
            "CHUHAN_DB_SCHEMA": self.schema,
            "REDIS_URL": REDIS_URL,
            "CHUHAN_REDIS_PREFIX": self.prefix,
            "CHUHAN_AI_WORKERS": "1",
            **env,
        }
        self.engine = create_engine(POSTGRES_URL)
        self.redis = redis.Redis.from_url(REDIS_URL)

    def add(self, *names: str, **env: str) -> list[Instance]:
        """Start instances together (as a deployment does: they race to migrate); ``env``:
        settings of these instances alone (a test's fault on one of them)."""
        started = [Instance(name, {**self.env, **env}, self.log_dir) for name in names]
        self.instances.extend(started)
        for instance in started:
            instance.spawn()
        for instance in started:
            instance.wait_healthy()
        return started

    def close(self) -> None:
        for instance in self.instances:
            instance.stop()
        with self.engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
        self.engine.dispose()
        self.redis.close()

    def sql(self, query: str, **params: Any) -> list[Any]:
        with self.engine.begin() as conn:
            conn.execute(text(f'SET search_path TO "{self.schema}"'))
            return list(conn.execute(text(query), params))

    def events(self, game_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        """The game's event log as stored: ``(seq, type, payload)``."""
        rows = self.sql(
            "SELECT seq, type, payload FROM game_events WHERE game_id = :g ORDER BY seq",
            g=game_id,
        )
        return [(row[0], row[1], row[2]) for row in rows]

    def drop_database_connections(self) -> int:
        """Terminate every PostgreSQL connection of this cluster's servers; returns how many."""
        rows = self.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :a",
            a=self.app_name,
        )
        return len(rows)

    def drop_redis_subscriptions(self) -> int:
        """Kill this cluster's Redis pub/sub connections (as a Redis restart would)."""
        killed = 0
        for client in self.redis.client_list(_type="pubsub"):
            if str(client.get("name", "")).startswith(self.prefix):
                self.redis.execute_command("CLIENT", "KILL", "ID", client["id"])
                killed += 1
        return killed


@contextlib.contextmanager
def cluster(log_dir: Path, names: tuple[str, ...] = ("a", "b"), **env: str) -> Iterator[Cluster]:
    running = Cluster(log_dir, **env)
    try:
        running.add(*names)
        yield running
    finally:
        running.close()


def player_on(instance: Instance) -> Player:
    """A new visitor whose identity comes from ``instance`` (cookies work on every one)."""
    return Player(instance.url)


@contextlib.contextmanager
def game_socket(instance: Instance, game_id: str, cookie: str) -> Iterator[RoomSocket]:
    """The game's socket on ``instance`` for the player whose ``chuhan_player`` cookie is
    ``cookie`` (maybe made on another instance), hello said."""
    url = instance.url.replace("http", "ws", 1) + f"/ws/games/{game_id}"
    with connect(url, additional_headers={"Cookie": f"chuhan_player={cookie}"}) as ws:
        sock = RoomSocket(ws)
        sock.request("hello", last_seq=None)
        yield sock


def open_room(
    player: Player,
    instance: Instance,
    room_id: str,
    holding: dict[str, Any] | None = None,
    **hello: Any,
) -> RoomSocket:
    """The player's room socket on ``instance`` (maybe not the one that made their cookie);
    ``holding``: the game state a reconnecting client holds."""
    url = instance.url.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
    ws = connect(url, additional_headers={"Cookie": player.cookie}).__enter__()
    sock = RoomSocket(ws, holding)
    sock.request("hello", **{"device": player.device, **hello})
    return sock


class PrivateRedis:
    """A ``redis-server`` of this test alone on a free port, so that a test can take Redis
    away (an outage) without touching the Redis every other test shares."""

    def __init__(self, log_dir: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log_path = log_dir / f"redis-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--logfile",
            str(self.log_path),
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.RedisError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        """Redis is gone: connections are refused until :meth:`start`."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def freeze(self) -> None:
        """Redis hangs: connections stay open and nothing is answered."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)


@contextlib.contextmanager
def private_redis(log_dir: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(log_dir)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.thaw()
        server.kill()
