"""A hub for several server instances: game and room events cross instances through Redis.

Every instance keeps a :class:`~.hub.local.LocalHub` for its own sockets. Each key (a game, a
room) has its own Redis pub/sub channel, ``<prefix>:k:<key>``, and an instance subscribes
to a key's channel only while one of its sockets follows the key: adding instances does not
multiply every message by the number of instances. Publishing delivers to the local
subscribers at once and sends ``{"from", "key", "seq"}`` with the change's news (or a
passing ``notice``) to the key's channel; the instances following the key deliver it to
their subscribers of that key. A socket that reads its state after :meth:`RedisHub.follow`
returned misses nothing: anything published later is received, anything earlier is in the
database. Secrecy (SPEC Z2) and ordering stay where they are for one instance.

Redis is a doorbell, not the record. When the subscription drops (Redis restarted, the
connection killed), the hub reconnects with a growing pause, subscribes to its keys again,
and then rings every local subscriber of each key once it is subscribed, so whatever crossed
while it was away is read from the database. Outgoing messages wait in a queue for one
publisher task, which sends them in pipelined batches and retries until Redis answers; local
delivery never depends on Redis.

Whether news crosses at all is checked end to end: every second the instance publishes an
echo on its own channel and listens for it. No echo for ``echo_timeout`` seconds, or no
subscription, is an outage (:meth:`RedisHub.down_since`): ``/health`` says so, and the room
clocks charge no one for it (SPEC R4, Z4).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ..background import cancel_all
from ..records import utcnow
from .local import RESYNC_SEQ, LocalHub, News, Subscriber

log = logging.getLogger("chuhan.hub")
_PAUSE_FIRST = 0.1
_PAUSE_MOST = 2.0
_PUBLISH_WAIT = 5.0  # for a free connection of the pool
_CONNECTIONS = 4  # the subscription, the publisher, and spare
_BATCH = 500  # messages per pipelined round trip
_CHANNELS_PER_COMMAND = 500  # channels per SUBSCRIBE / UNSUBSCRIBE
_OUTBOX = 100_000  # messages waiting for Redis before new ones are dropped
_FOLLOW_WAIT = 2.0  # at most, for Redis to confirm a new subscription
ECHO_EVERY = 1.0
ECHO_TIMEOUT = 3.0


class RedisHub:
    """The :class:`~.hub.local.Hub` of one instance among several sharing ``url``'s Redis.

    ``prefix`` names the channels, so several deployments (or test runs) can share one
    Redis. Call :meth:`start` before use (it waits up to ``start_wait`` seconds for the
    subscription and the first echo) and :meth:`stop` at the end.
    """

    def __init__(
        self,
        url: str,
        prefix: str = "chuhan",
        start_wait: float = 5.0,
        echo_timeout: float = ECHO_TIMEOUT,
    ) -> None:
        self.local = LocalHub()
        self.start_wait = start_wait
        self.echo_timeout = echo_timeout
        self.prefix = prefix
        self.instance = secrets.token_hex(8)
        self._key_prefix = f"{prefix}:k:"
        self.echo_channel = f"{prefix}:echo:{self.instance}"
        # A message this instance sent starts so (json.dumps keeps the dict's order): its
        # own messages coming back on a channel it follows are dropped without parsing.
        self._own = json.dumps({"from": self.instance})[:-1].replace(" ", "").encode()
        self.connected = False
        self.published = 0
        self.received = 0
        self.publish_failures = 0
        self.reconnects = 0
        self.publishing = True  # False from a failed batch until one goes through
        self.started_at = utcnow()
        self.echo_at: datetime | None = None  # the last echo heard (wall clock)
        self._echo_seen = 0.0  # time.monotonic() of it
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
        self._tasks: list[asyncio.Task[None]] = []
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue(maxsize=_OUTBOX)
        self._echoed = asyncio.Event()
        self._deliveries: set[asyncio.Task[None]] = set()
        self._closing = False
        # Channels asked of Redis on the current connection, and those it confirmed.
        self._sent: set[str] = set()
        self._active: set[str] = set()
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._changed = asyncio.Event()  # the keys followed here changed: ``_dirty``
        self._dirty: set[str] = set()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Start listening; waits (a few seconds at most) until news crosses (an echo).

        An instance whose Redis is down still starts: it serves its own sockets and joins
        the others once Redis answers.
        """
        loop = asyncio.get_running_loop()
        self.started_at = utcnow()
        self._tasks = [
            loop.create_task(self._listen()),
            loop.create_task(self._publish_queued()),
            loop.create_task(self._echo()),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._echoed.wait(), self.start_wait)

    async def stop(self) -> None:
        self._closing = True
        await cancel_all([*self._tasks, *self._deliveries])
        with contextlib.suppress(RedisError, OSError):
            await self._redis.aclose()
            await self._pool.disconnect()

    # ------------------------------------------------------------------ health

    @property
    def healthy(self) -> bool:
        """True while news crosses: subscribed, and this instance's own echo came back."""
        fresh = time.monotonic() - self._echo_seen < self.echo_timeout
        return self.connected and self.echo_at is not None and fresh

    def down_since(self) -> datetime | None:
        """None while news crosses; otherwise the last moment it was known to (the last
        echo heard, or the start)."""
        if self.healthy:
            return None
        return self.echo_at or self.started_at

    def news_checked_at(self) -> datetime | None:
        """The last echo heard: news crossed until then."""
        return self.echo_at

    def health(self) -> dict[str, Any]:
        """What ``/health`` says of the hub: ``ok``, or which part is down."""
        age = time.monotonic() - self._echo_seen if self.echo_at is not None else None
        return {
            "status": "ok" if self.healthy else "down",
            "subscribed": self.connected,
            "publishing": self.publishing,
            "echo_age_seconds": round(age, 3) if age is not None else None,
            "keys": len(self.local.topics()),
        }

    # ------------------------------------------------------------------ the Hub protocol

    def channel_of(self, key: str) -> str:
        return self._key_prefix + key

    def subscribe(self, key: str, subscriber: Subscriber) -> None:
        """Follow ``key`` here; the first local subscriber subscribes this instance to it.
        News published elsewhere before Redis confirms is caught up from the database: the
        confirmation rings the key's local subscribers (see :meth:`follow` for a wait)."""
        first = not self.local.count(key)
        self.local.subscribe(key, subscriber)
        if first:
            self._dirty.add(key)
            self._changed.set()

    async def follow(self, key: str, subscriber: Subscriber) -> None:
        """:meth:`subscribe`, returning once Redis has confirmed the key's subscription
        (at most a moment; at once while Redis is away): a state read after it misses
        nothing published later."""
        self.subscribe(key, subscriber)
        channel = self.channel_of(key)
        if channel in self._active or not self.connected:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(channel, []).append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), _FOLLOW_WAIT)
        except TimeoutError:
            log.warning("redis subscription not confirmed in time", extra={"key": key})
        finally:
            waiters = self._waiters.get(channel)
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    del self._waiters[channel]

    def unsubscribe(self, key: str, subscriber: Subscriber) -> None:
        """The last local subscriber gone, this instance unsubscribes from ``key``."""
        self.local.unsubscribe(key, subscriber)
        if not self.local.count(key):
            self._dirty.add(key)
            self._changed.set()

    def count(self, key: str) -> int:
        return self.local.count(key)

    def on_news(self, listener: Any) -> None:
        self.local.on_news(listener)

    async def publish(self, key: str, seq: int, news: News | None = None) -> None:
        """Tell this instance's subscribers of ``key``; queue the news for the others."""
        message: dict[str, Any] = {"from": self.instance, "key": key, "seq": seq}
        if news is not None:
            message["news"] = news.to_json()
        self._send(key, message)
        await self.local.publish(key, seq, news)

    async def notice(self, key: str, message: dict[str, Any]) -> None:
        self._send(key, {"from": self.instance, "key": key, "notice": message})
        await self.local.notice(key, message)

    # ------------------------------------------------------------------ Redis

    def _send(self, key: str, payload: dict[str, Any]) -> None:
        """Queue a message for the publisher task: a committed move never waits on Redis."""
        self._queue(self.channel_of(key), json.dumps(payload, separators=(",", ":")))

    def _queue(self, channel: str, text: str) -> None:
        try:
            self._outbox.put_nowait((channel, text))
        except asyncio.QueueFull:
            self.publish_failures += 1
            log.warning("redis outbox full; message dropped", extra={"channel": channel})

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
                        for channel, text in batch:
                            pipe.publish(channel, text)
                        await pipe.execute()
                    self.published += len(batch)
                    self.publishing = True
                    pause = _PAUSE_FIRST
                    break
                except (RedisError, OSError) as exc:
                    self.publish_failures += 1
                    self.publishing = False
                    log.warning("redis publish failed", extra={"error": str(exc)})
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, _PAUSE_MOST)

    async def _echo(self) -> None:
        """Publish an echo on this instance's own channel every second (see the module)."""
        while not self._closing:
            if self._outbox.empty():  # a backlog is Redis not keeping up: no echo is due
                self._queue(self.echo_channel, "echo")
            await asyncio.sleep(ECHO_EVERY)

    async def _listen(self) -> None:
        pause = _PAUSE_FIRST
        first = True
        while not self._closing:
            pubsub = self._redis.pubsub()
            syncing: asyncio.Task[None] | None = None
            try:
                await pubsub.subscribe(self.echo_channel)
                self._sent, self._active = set(), set()
                self.connected = True
                pause = _PAUSE_FIRST
                if not first:
                    self.reconnects += 1
                    log.info("redis subscription restored", extra={"prefix": self.prefix})
                first = False
                self._dirty.update(self.local.topics())  # subscribe again to every key
                self._changed.set()
                syncing = asyncio.get_running_loop().create_task(self._sync(pubsub))
                while not self._closing:
                    if syncing.done():
                        syncing.result()  # its failure is this connection's
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._handle(message)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                if self.connected or first:
                    log.warning("redis subscription lost", extra={"error": str(exc)})
                self.connected = False
                await asyncio.sleep(pause)
                pause = min(pause * 2, _PAUSE_MOST)
            finally:
                if syncing is not None:
                    syncing.cancel()
                    await asyncio.gather(syncing, return_exceptions=True)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _sync(self, pubsub: Any) -> None:
        """Subscribe to the keys followed here and unsubscribe from the others, in batches,
        whenever they change (the listener reads the confirmations)."""
        while not self._closing:
            await self._changed.wait()
            self._changed.clear()
            dirty, self._dirty = self._dirty, set()
            followed = {key for key in dirty if self.local.count(key)}
            added = sorted(self.channel_of(key) for key in followed)
            added = [channel for channel in added if channel not in self._sent]
            gone = sorted(
                channel
                for channel in (self.channel_of(key) for key in dirty - followed)
                if channel in self._sent
            )
            for index in range(0, len(added), _CHANNELS_PER_COMMAND):
                chunk = added[index : index + _CHANNELS_PER_COMMAND]
                self._sent.update(chunk)
                await pubsub.subscribe(*chunk)
            for index in range(0, len(gone), _CHANNELS_PER_COMMAND):
                chunk = gone[index : index + _CHANNELS_PER_COMMAND]
                self._sent.difference_update(chunk)
                self._active.difference_update(chunk)
                await pubsub.unsubscribe(*chunk)

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        channel = message.get("channel")
        if isinstance(channel, bytes):
            channel = channel.decode("utf-8", errors="replace")
        if not isinstance(channel, str):
            return
        if kind == "message":
            if channel == self.echo_channel:
                self.echo_at = utcnow()
                self._echo_seen = time.monotonic()
                self._echoed.set()
            elif channel.startswith(self._key_prefix):
                self._deliver(channel[len(self._key_prefix) :], message["data"])
        elif kind == "subscribe" and channel in self._sent:
            self._confirmed(channel)

    def _confirmed(self, channel: str) -> None:
        """Redis confirmed a subscription. A socket waiting in :meth:`follow` reads its
        state next; any other local subscriber may have missed news: it reads the log."""
        self._active.add(channel)
        waiters = self._waiters.pop(channel, [])
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        if not waiters:
            key = channel[len(self._key_prefix) :]
            if self.local.count(key):
                self._spawn(self.local.publish(key, RESYNC_SEQ))

    def _deliver(self, key: str, data: bytes | str) -> None:
        """Hand one message from another instance to the local subscribers of ``key``."""
        raw = data if isinstance(data, bytes) else data.encode("utf-8", errors="replace")
        if raw.startswith(self._own):
            return
        self.received += 1  # another instance's message on a key this instance follows
        if not self.local.count(key):
            return  # its last socket just left
        try:
            payload = json.loads(raw)
            notice = dict(payload["notice"]) if "notice" in payload else None
            seq = int(payload.get("seq", RESYNC_SEQ))
            if str(payload["key"]) != key:
                raise ValueError("the message names another key")
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("malformed hub message ignored")
            return
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

    def _spawn(self, delivery: Any) -> None:
        # Each delivery may read the database: run them side by side, never holding the
        # listener.
        task = asyncio.get_running_loop().create_task(delivery)
        self._deliveries.add(task)
        task.add_done_callback(self._deliveries.discard)
