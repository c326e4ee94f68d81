"""A hub for several server instances: game and room events cross instances through Redis.

Every instance keeps a :class:`~.hub.LocalHub` for its own sockets and subscribes to one Redis
pub/sub channel, ``<prefix>:events``. Publishing delivers to the local subscribers at once
and sends ``{"from", "key", "seq"}`` (or a passing ``notice``) to the channel; the other
instances deliver it to their subscribers of that key. What crosses is only "key K has events
up to seq N": each connection reads what it missed from the shared database and renders it
for its own viewer, so secrecy (SPEC Z2) and ordering stay where they are for one instance.

Redis is a doorbell, not the record. When the subscription drops (Redis restarted, the
connection killed), the hub reconnects with a growing pause and then rings every local
subscriber once, so whatever crossed while it was away is read from the database. Outgoing
messages wait in a queue for one publisher task, which sends them in pipelined batches and
retries until Redis answers; local delivery never depends on Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .hub import LocalHub, News, Subscriber

log = logging.getLogger("chuhan.hub")
RESYNC_SEQ = -1  # "read whatever you missed": subscribers catch up from the database anyway
_PAUSE_FIRST = 0.1
_PAUSE_MOST = 2.0
_PUBLISH_WAIT = 5.0  # for a free connection of the pool
_CONNECTIONS = 4  # the subscription, the publisher, and spare
_BATCH = 500  # messages per pipelined round trip
_OUTBOX = 100_000  # messages waiting for Redis before new ones are dropped


class RedisHub:
    """The :class:`~.hub.Hub` of one instance among several sharing ``url``'s Redis.

    ``prefix`` names the channel, so several deployments (or test runs) can share one Redis.
    Call :meth:`start` before use (it waits up to ``start_wait`` seconds for the
    subscription) and :meth:`stop` at the end.
    """

    def __init__(self, url: str, prefix: str = "chuhan", start_wait: float = 5.0) -> None:
        self.local = LocalHub()
        self.start_wait = start_wait
        self.channel = f"{prefix}:events"
        self.instance = secrets.token_hex(8)
        self.connected = False
        self.published = 0
        self.received = 0
        self.publish_failures = 0
        self.reconnects = 0
        # The subscription and the publisher each hold a connection; a bounded, blocking pool
        # (a plain one refuses "too many connections" in a burst). The client name lets an
        # operator (or a test) find this instance's connections.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=_CONNECTIONS,
            timeout=_PUBLISH_WAIT,
            socket_connect_timeout=2,
            socket_timeout=5,
            health_check_interval=5,
            client_name=f"{prefix}:{self.instance}",
        )
        self._pool = pool
        self._redis = aioredis.Redis(connection_pool=pool)
        self._listener: asyncio.Task[None] | None = None
        self._publisher: asyncio.Task[None] | None = None
        self._outbox: asyncio.Queue[str] = asyncio.Queue(maxsize=_OUTBOX)
        self._subscribed = asyncio.Event()
        self._deliveries: set[asyncio.Task[None]] = set()
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Start listening; waits (a few seconds at most) until the channel is subscribed.

        An instance whose Redis is down still starts: it serves its own sockets and joins
        the others once Redis answers.
        """
        loop = asyncio.get_running_loop()
        self._listener = loop.create_task(self._listen())
        self._publisher = loop.create_task(self._publish_queued())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), self.start_wait)

    async def stop(self) -> None:
        self._closing = True
        tasks = [t for t in (self._listener, self._publisher, *self._deliveries) if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(RedisError, OSError):
            await self._redis.aclose()
            await self._pool.disconnect()

    # ------------------------------------------------------------------ the Hub protocol

    def subscribe(self, key: str, subscriber: Subscriber) -> None:
        self.local.subscribe(key, subscriber)

    def unsubscribe(self, key: str, subscriber: Subscriber) -> None:
        self.local.unsubscribe(key, subscriber)

    def count(self, key: str) -> int:
        return self.local.count(key)

    async def publish(self, key: str, seq: int, news: News | None = None) -> None:
        """Tell this instance's subscribers of ``key``; queue the news for the others."""
        message: dict[str, Any] = {"from": self.instance, "key": key, "seq": seq}
        if news is not None:
            message["news"] = news.to_json()
        self._send(message)
        await self.local.publish(key, seq, news)

    async def notice(self, key: str, message: dict[str, Any]) -> None:
        self._send({"from": self.instance, "key": key, "notice": message})
        await self.local.notice(key, message)

    # ------------------------------------------------------------------ Redis

    def _send(self, payload: dict[str, Any]) -> None:
        """Queue a message for the publisher task: a committed move never waits on Redis."""
        try:
            self._outbox.put_nowait(json.dumps(payload, separators=(",", ":")))
        except asyncio.QueueFull:
            self.publish_failures += 1
            log.warning("redis outbox full; message dropped", extra={"key": payload["key"]})

    async def _publish_queued(self) -> None:
        """Send queued messages in pipelined batches; a failed batch is sent again once
        Redis answers (a doorbell twice is harmless: subscribers read what is new)."""
        pause = _PAUSE_FIRST
        while not self._closing:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < _BATCH:
                batch.append(self._outbox.get_nowait())
            while not self._closing:
                try:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for message in batch:
                            pipe.publish(self.channel, message)
                        await pipe.execute()
                    self.published += len(batch)
                    pause = _PAUSE_FIRST
                    break
                except (RedisError, OSError) as exc:
                    self.publish_failures += 1
                    log.warning("redis publish failed", extra={"error": str(exc)})
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, _PAUSE_MOST)

    async def _listen(self) -> None:
        pause = _PAUSE_FIRST
        first = True
        while not self._closing:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self.connected = True
                self._subscribed.set()
                pause = _PAUSE_FIRST
                if not first:
                    self.reconnects += 1
                    log.info("redis subscription restored", extra={"channel": self.channel})
                first = False
                self._resync()  # sockets that came while it was down, or missed messages
                while not self._closing:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._deliver(message["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                if self.connected or first:
                    log.warning("redis subscription lost", extra={"error": str(exc)})
                self.connected = False
                await asyncio.sleep(pause)
                pause = min(pause * 2, _PAUSE_MOST)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _deliver(self, data: bytes | str) -> None:
        """Hand one message from another instance to the local subscribers of its key."""
        try:
            payload = json.loads(data)
            key = str(payload["key"])
            notice = dict(payload["notice"]) if "notice" in payload else None
            seq = int(payload.get("seq", RESYNC_SEQ))
            sender = payload.get("from")
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("malformed hub message ignored")
            return
        if sender == self.instance or not self.local.count(key):
            return
        self.received += 1
        if notice is not None:
            self._spawn(self.local.notice(key, notice))
            return
        news = None
        if "news" in payload:
            try:
                news = News.from_json(payload["news"])
            except (ValueError, KeyError, TypeError, AttributeError):
                log.warning("malformed news ignored; subscribers read the log")
        self._spawn(self.local.publish(key, seq, news))

    def _resync(self) -> None:
        """After a gap in the subscription every local subscriber reads what it missed."""
        for key in self.local.topics():
            self._spawn(self.local.publish(key, RESYNC_SEQ))

    def _spawn(self, delivery: Any) -> None:
        # Each delivery reads the database: run them side by side, never holding the listener.
        task = asyncio.get_running_loop().create_task(delivery)
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)
