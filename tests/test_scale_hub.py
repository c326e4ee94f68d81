"""The Redis hub in one process: two hubs on one Redis stand for two server instances.

What crosses is "key K is at seq N" (or a passing notice), with a committed change's news
(the game and its new events) when there is one; a hub never hands its own message
back to its sockets, only rings subscribers of the key, ignores garbage on the channel, and
after its subscription was cut rings every local subscriber so that they catch up from the
database (issue 11).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from chuhan.server.hub import News
from chuhan.server.redis_hub import RESYNC_SEQ, RedisHub
from chuhan.server.storage import GameRecord, utcnow
from test_scale_support import REDIS_URL

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
            first.subscribe("g_1", here)
            second.subscribe("g_1", there)
            second.subscribe("g_2", elsewhere)
            await first.publish("g_1", 7)
            await there.wait(1)
            await first.notice("g_1", {"type": "busy"})
            await there.wait(2)
            await asyncio.sleep(0.2)  # anything more would have arrived by now
            assert here.rings == [("g_1", 7)] and here.notices == [{"type": "busy"}]
            assert there.rings == [("g_1", 7)] and there.notices == [{"type": "busy"}]
            assert elsewhere.rings == [] and elsewhere.notices == []
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
        level=None,
        player_id=None,
        human_side=None,
        options={"clock": {"deadline": "2026-11-30T10:00:00Z"}},
        secret={"arrangement": "x", "salt": "y"},
        start_fen="start",
        moves=["h2e2", "h9g7"],
        status="ongoing",
        result=None,
        practice=False,
        points_awarded=0,
        seq=seq,
        created_at=now,
        expires_at=now,
        updated_at=now,
    )


def test_a_change_crosses_with_its_news_but_not_the_jieqi_secret_Z2() -> None:
    async def scenario() -> None:
        async for first, second, prefix in _hubs():
            there = Socket()
            second.subscribe("g_1", there)
            payloads = [{"type": "move", "move": "h9g7", "snapshot": {"moves": ["h2e2", "h9g7"]}}]
            await first.publish("g_1", 3, News.of(_game(3), payloads))
            await there.wait(1)
            news = there.news[-1]
            assert news is not None and news.game.options == _game(3).options
            # the jieqi arrangement stays in the database: the receiver reads it from there
            assert news.withheld and news.game.secret is None
            assert news.game.moves == ["h2e2", "h9g7"] and news.game.seq == 3
            assert news.game.created_at.tzinfo is not None
            assert [(e.seq, e.payload) for e in news.events] == [(3, payloads[0])]
            # what a socket that sent up to seq 2 still needs; one that sent 1 missed seq 2
            assert [e.seq for e in news.after(2) or []] == [3]
            assert news.after(3) == [] and news.after(1) is None
            # news that does not add up is dropped: the ring still comes, to read the log
            raw = aioredis.Redis.from_url(REDIS_URL)
            bad = '{"key": "g_1", "seq": 4, "news": {"game": {"id": "g_1"}, "events": []}}'
            await raw.publish(f"{prefix}:events", bad)
            await there.wait(2)
            assert there.rings[-1] == ("g_1", 4) and there.news[-1] is None
            await raw.aclose()

    run(scenario())


def test_garbage_on_the_channel_is_ignored() -> None:
    async def scenario() -> None:
        async for first, second, prefix in _hubs():
            there = Socket()
            second.subscribe("g_1", there)
            raw = aioredis.Redis.from_url(REDIS_URL)
            for junk in ("not json", "[]", '{"key": "g_1", "seq": "x"}', '{"seq": 3}'):
                await raw.publish(f"{prefix}:events", junk)
            await first.publish("g_1", 4)
            await there.wait(1)
            assert there.rings[-1] == ("g_1", 4) and second.connected
            await raw.aclose()

    run(scenario())


def test_a_cut_subscription_comes_back_and_rings_every_local_subscriber() -> None:
    async def scenario() -> None:
        async for first, second, prefix in _hubs():
            waiting = Socket()
            second.subscribe("room:r_1", waiting)
            raw = aioredis.Redis.from_url(REDIS_URL)
            for client in await raw.client_list(_type="pubsub"):
                if client["name"] == f"{prefix}:{second.instance}":
                    await raw.execute_command("CLIENT", "KILL", "ID", client["id"])
            await waiting.wait(1)  # the resync after the reconnection
            assert waiting.rings == [("room:r_1", RESYNC_SEQ)]
            assert second.reconnects == 1 and second.connected
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
        assert not hub.connected and hub.published == 0
        await hub.stop()

    run(scenario())


async def _hubs() -> AsyncIterator[tuple[RedisHub, RedisHub, str]]:
    prefix = f"chuhan-test-{uuid.uuid4().hex[:10]}"
    first, second = RedisHub(REDIS_URL, prefix), RedisHub(REDIS_URL, prefix)
    await first.start()
    await second.start()
    assert first.connected and second.connected
    try:
        yield first, second, prefix
    finally:
        await first.stop()
        await second.stop()
