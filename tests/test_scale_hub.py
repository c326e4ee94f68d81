"""The Redis hub in one process: two hubs on one Redis stand for two server instances.

What crosses is "key K is at seq N" (or a passing notice), with a committed change's news
(the game and its new events) when there is one; a hub never hands its own message
back to its sockets, only rings subscribers of the key, ignores garbage on the channel, and
after its subscription was cut rings every local subscriber so that they catch up from the
database. Each key has its own channel, which an instance follows only while one
of its sockets does.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from chuhan.server.hub.local import RESYNC_SEQ, News
from chuhan.server.hub.redis import RedisHub
from chuhan.server.records import GameRecord, utcnow
from test_scale_support import REDIS_URL, PrivateRedis, private_redis

pytestmark = pytest.mark.timeout(60)


class Socket:
    """A subscriber that records what it was told."""

    def __init__(self) -> None:
        self.rings: list[tuple[str, int]] = []
        self.news: list[News | None] = []
        self.notices: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def notify(self, key: str, seq: int, news: News | None = None) -> None:
        self.rings.append((key, seq))
        self.news.append(news)
        self.changed.set()

    async def notice(self, message: dict[str, Any]) -> None:
        self.notices.append(message)
        self.changed.set()

    async def wait(self, count: int) -> None:
        async with asyncio.timeout(10):
            while len(self.rings) + len(self.notices) < count:
                self.changed.clear()
                await self.changed.wait()


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_events_cross_to_the_other_instance_once_and_only_to_its_subscribers() -> None:
    async def scenario() -> None:
        async for first, second, _ in _hubs():
            here, there, elsewhere = Socket(), Socket(), Socket()
            await first.follow("g_1", here)
            await second.follow("g_1", there)
            await second.follow("g_2", elsewhere)
            await first.publish("g_1", 7)
            await there.wait(1)
            await first.notice("g_1", {"type": "busy"})
            await there.wait(2)
            await asyncio.sleep(0.2)  # anything more would have arrived by now
            assert here.rings == [("g_1", 7)]
            assert here.notices == [{"type": "busy"}]
            assert there.rings == [("g_1", 7)]
            assert there.notices == [{"type": "busy"}]
            assert elsewhere.rings == []
            assert elsewhere.notices == []
            second.unsubscribe("g_1", there)
            await first.publish("g_1", 8)
            await asyncio.sleep(0.2)
            assert there.rings == [("g_1", 7)]

    run(scenario())


def _game(seq: int) -> GameRecord:
    now = utcnow()
    return GameRecord(
        id="g_1",
        kind="online",
        variant="jieqi",
        options={"clock": {"deadline": "2026-11-30T10:00:00Z"}},
        secret={"arrangement": "x", "salt": "y"},
        start_fen="start",
        moves=["h2e2", "h9g7"],
        seq=seq,
        created_at=now,
        expires_at=now,
        updated_at=now,
    )


def test_a_change_crosses_with_its_news_but_not_the_jieqi_secret_Z2() -> None:
    async def scenario() -> None:
        async for first, second, _ in _hubs():
            there = Socket()
            await second.follow("g_1", there)
            payloads = [{"type": "move", "move": "h9g7", "snapshot": {"moves": ["h2e2", "h9g7"]}}]
            await first.publish("g_1", 3, News.of(_game(3), payloads))
            await there.wait(1)
            news = there.news[-1]
            assert news is not None
            assert news.game.options == _game(3).options
            # the jieqi arrangement stays in the database: the receiver reads it from there
            assert news.withheld
            assert news.game.secret is None
            assert news.game.moves == ["h2e2", "h9g7"]
            assert news.game.seq == 3
            assert news.game.created_at.tzinfo is not None
            assert [(e.seq, e.payload) for e in news.events] == [(3, payloads[0])]
            # what a socket that sent up to seq 2 still needs; one that sent 1 missed seq 2
            assert [e.seq for e in news.after(2) or []] == [3]
            assert news.after(3) == []
            assert news.after(1) is None
            # news that does not add up is dropped: the ring still comes, to read the log
            raw = aioredis.Redis.from_url(REDIS_URL)
            bad = '{"key": "g_1", "seq": 4, "news": {"game": {"id": "g_1"}, "events": []}}'
            await raw.publish(second.channel_of("g_1"), bad)
            await there.wait(2)
            assert there.rings[-1] == ("g_1", 4)
            assert there.news[-1] is None
            await raw.aclose()

    run(scenario())


def test_garbage_on_the_channel_is_ignored() -> None:
    async def scenario() -> None:
        async for first, second, _ in _hubs():
            there = Socket()
            await second.follow("g_1", there)
            raw = aioredis.Redis.from_url(REDIS_URL)
            junks = ("not json", "[]", '{"key": "g_1", "seq": "x"}', '{"seq": 3}', '{"key": "g_2"}')
            for junk in junks:
                await raw.publish(second.channel_of("g_1"), junk)
            await first.publish("g_1", 4)
            await there.wait(1)
            assert there.rings[-1] == ("g_1", 4)
            assert second.connected
            await raw.aclose()

    run(scenario())


def test_a_cut_subscription_comes_back_and_rings_every_local_subscriber() -> None:
    async def scenario() -> None:
        async for first, second, prefix in _hubs():
            waiting = Socket()
            await second.follow("room:r_1", waiting)
            raw = aioredis.Redis.from_url(REDIS_URL)
            for client in await raw.client_list(_type="pubsub"):
                if client["name"] == f"{prefix}:{second.instance}":
                    await raw.execute_command("CLIENT", "KILL", "ID", client["id"])
            await waiting.wait(1)  # the resync after the reconnection
            assert waiting.rings == [("room:r_1", RESYNC_SEQ)]
            assert second.reconnects == 1
            assert second.connected
            # the publishing side's connections cut too: the message is sent again
            for client in await raw.client_list():
                if client["name"] == f"{prefix}:{first.instance}":
                    await raw.execute_command("CLIENT", "KILL", "ID", client["id"])
            await first.publish("room:r_1", 5)
            await waiting.wait(2)
            assert waiting.rings[-1] == ("room:r_1", 5)
            await raw.aclose()

    run(scenario())


def test_without_redis_the_instance_still_serves_its_own_sockets() -> None:
    async def scenario() -> None:
        hub = RedisHub("redis://127.0.0.1:1/0", "chuhan-test-nowhere", start_wait=0.3)
        await hub.start()
        here = Socket()
        hub.subscribe("g_1", here)
        await hub.publish("g_1", 2)
        assert here.rings == [("g_1", 2)]
        async with asyncio.timeout(10):
            while not hub.publish_failures:  # tried, and queued to try again
                await asyncio.sleep(0.05)
        assert not hub.connected
        assert hub.published == 0
        await hub.stop()

    run(scenario())


def test_an_instance_receives_only_the_keys_its_sockets_follow() -> None:
    async def scenario() -> None:
        async for first, second, _ in _hubs():
            raw = aioredis.Redis.from_url(REDIS_URL)
            here, there = Socket(), Socket()
            await first.follow("g_1", here)
            await second.follow("g_2", there)
            numsub = dict(await raw.pubsub_numsub(first.channel_of("g_1")))
            assert numsub[first.channel_of("g_1").encode()] == 1  # only the first follows it
            for seq in range(1, 21):
                await first.publish("g_1", seq)
            await first.publish("g_2", 1)
            await there.wait(1)
            await asyncio.sleep(0.2)
            assert second.received == 1  # g_2's message only, none of g_1's twenty
            assert there.rings == [("g_2", 1)]
            # The last socket gone, the instance unsubscribes: the key's news no longer reach it.
            second.unsubscribe("g_2", there)
            async with asyncio.timeout(5):
                while dict(await raw.pubsub_numsub(second.channel_of("g_2")))[
                    second.channel_of("g_2").encode()
                ]:
                    await asyncio.sleep(0.02)
            await first.publish("g_2", 2)
            await asyncio.sleep(0.2)
            assert second.received == 1
            await raw.aclose()

    run(scenario())


def test_news_published_right_after_follow_returns_is_never_lost() -> None:
    """``follow`` returns once Redis confirmed: a state read after it misses nothing (the
    news published from then on arrives); a plain subscribe is rung on its confirmation so
    that its socket reads the log instead."""

    async def scenario() -> None:
        async for first, second, _ in _hubs():
            sockets = [Socket() for _ in range(40)]
            for index, sock in enumerate(sockets):
                await second.follow(f"g_{index}", sock)
                await first.publish(f"g_{index}", 1)  # at once, from the other instance
            async with asyncio.timeout(10):
                for sock in sockets:
                    await sock.wait(1)
            assert all(
                sock.rings == [(key, 1)]
                for key, sock in zip([f"g_{i}" for i in range(40)], sockets, strict=True)
            )
            unconfirmed = Socket()
            second.subscribe("room:r_9", unconfirmed)
            await unconfirmed.wait(1)
            assert unconfirmed.rings == [("room:r_9", RESYNC_SEQ)]

    run(scenario())


def test_health_says_when_news_stops_crossing_Z4(tmp_path: Path) -> None:
    """Redis hanging (connections open, nothing answered) or gone: the hub says it is down
    since its last echo; back, it says ok again."""

    async def scenario(redis_server: PrivateRedis) -> None:
        async for first, _, _ in _hubs(redis_server.url):
            assert first.healthy
            assert first.down_since() is None
            assert first.health()["status"] == "ok"
            for take_away, bring_back in (
                (redis_server.freeze, redis_server.thaw),
                (redis_server.kill, redis_server.start),
            ):
                take_away()
                async with asyncio.timeout(10):
                    while first.healthy:
                        await asyncio.sleep(0.1)
                since = first.down_since()
                assert since is not None
                assert since == first.echo_at
                assert first.health()["status"] == "down"
                bring_back()
                async with asyncio.timeout(15):
                    while not first.healthy:
                        await asyncio.sleep(0.1)
                assert first.down_since() is None

    with private_redis(tmp_path) as redis_server:
        run(scenario(redis_server))


async def _hubs(url: str = REDIS_URL) -> AsyncIterator[tuple[RedisHub, RedisHub, str]]:
    prefix = f"chuhan-test-{uuid.uuid4().hex[:10]}"
    first, second = RedisHub(url, prefix), RedisHub(url, prefix)
    await first.start()
    await second.start()
    assert first.connected
    assert second.connected
    try:
        yield first, second, prefix
    finally:
        await first.stop()
        await second.stop()
