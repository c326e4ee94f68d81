"""``/metrics`` in the Prometheus text format: games, moves, AI queue, latency, hub.

One :class:`Metrics` per app, with its own registry (no global state: tests run several apps
side by side). It observes what the server already does instead of being called from
everywhere: the game service's committed changes, the AI pool's finished jobs, the HTTP
requests (an ASGI middleware), and, when scraped, the database (ongoing games per kind) and
the hub (local subscribers, Redis state).

Counters are per instance; Prometheus sums them over the instances it scrapes. The games
gauge reads the shared database, so every instance reports the same total.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from functools import partial
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Receive, Scope, Send

from ..ai.pool import AIJob, AIPool
from ..games.service import GameService
from ..records import Change

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
AI_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The instance's metrics; :meth:`watch` connects them to a service and its pool."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        latency = partial(Histogram, buckets=LATENCY_BUCKETS, registry=r)
        ai_job = partial(Histogram, labelnames=["kind", "level"], buckets=AI_BUCKETS, registry=r)
        self.moves = Counter(
            "chuhan_moves", "Moves committed by this instance", ["kind", "variant"], registry=r
        )
        self.game_ends = Counter(
            "chuhan_game_ends", "Games finished by this instance", ["kind", "reason"], registry=r
        )
        self.change_seconds = latency(
            "chuhan_change_seconds",
            "Read, decide, commit and announce one game change (a move: until it is durable)",
            ["event"],
        )
        self.http_seconds = latency(
            "chuhan_http_request_seconds", "HTTP requests by route template", ["method", "route"]
        )
        self.ai_wait = ai_job("chuhan_ai_queue_wait_seconds", "Time an AI job waited for a worker")
        self.ai_run = ai_job("chuhan_ai_job_seconds", "Time an AI job ran in a worker")
        self.ai_jobs = Gauge(
            "chuhan_ai_jobs", "AI jobs waiting or running in this instance", registry=r
        )
        self.ai_workers = Gauge("chuhan_ai_workers", "AI worker processes", registry=r)
        self.ai_max_jobs = Gauge(
            "chuhan_ai_max_jobs", "AI jobs accepted at once before 'busy'", registry=r
        )
        self.subscribers = Gauge(
            "chuhan_hub_subscribers",
            "Sockets following a game or room on this instance",
            registry=r,
        )

    def watch(self, service: GameService, pool: AIPool) -> None:
        """Observe ``service``'s changes, ``pool``'s jobs, and (when scraped) the database
        and the hub."""
        service.change_observers.append(self.observe_change)
        pool.job_observers.append(self.observe_ai_job)
        self.ai_jobs.set_function(lambda: pool.pending)
        self.ai_workers.set(pool.workers)
        self.ai_max_jobs.set(pool.max_jobs)
        local = getattr(service.hub, "local", service.hub)
        if hasattr(local, "topics") and hasattr(local, "count"):
            self.subscribers.set_function(lambda: sum(local.count(k) for k in local.topics()))
        self.registry.register(_StoredGames(service))
        if hasattr(service.hub, "connected"):
            self.registry.register(_RedisState(service.hub))
        if pool.shared:
            self.registry.register(_SharedQueue(pool))

    def observe_change(self, change: Change, seconds: float) -> None:
        game = change.after
        kinds = [event["type"] for event in change.events]
        for _ in range(kinds.count("move")):
            self.moves.labels(game.kind, game.variant).inc()
        if change.before.ongoing and not game.ongoing:
            reason = str((game.result or {}).get("reason", "unknown"))
            self.game_ends.labels(game.kind, reason).inc()
        self.change_seconds.labels(kinds[0] if kinds else "none").observe(seconds)

    def observe_ai_job(self, job: AIJob, waited: float, ran: float) -> None:
        level = job.level if job.kind in ("move", "hint") else "-"
        self.ai_wait.labels(job.kind, level).observe(waited)
        self.ai_run.labels(job.kind, level).observe(ran)

    def text(self) -> bytes:
        """The exposition (blocking: the games gauge reads the database)."""
        return bytes(generate_latest(self.registry))

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """An ASGI middleware timing HTTP requests by their route template."""
        histogram = self.http_seconds

        async def timed(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            try:
                await app(scope, receive, send)
            finally:
                route = getattr(scope.get("route"), "path", None) or "unmatched"
                histogram.labels(scope.get("method", "GET"), route).observe(
                    time.perf_counter() - started
                )

        return timed


class _StoredGames(Collector):
    """Ongoing games per kind in the shared database (every instance sees the same)."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return [GaugeMetricFamily("chuhan_games_ongoing", "Ongoing games", labels=["kind"])]

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("chuhan_games_ongoing", "Ongoing games", labels=["kind"])
        counts = dict.fromkeys(("ai", "local", "online"), 0)
        try:
            counts.update(self.service.store.ongoing_counts())
        except Exception:  # a scrape during a database outage still reports the rest
            return [family]
        for kind, count in sorted(counts.items()):
            family.add_metric([kind], count)
        return [family]


class _RedisState(Collector):
    """The Redis hub: subscribed or not, messages published, received, failed, reconnects."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return list(self.collect())

    def collect(self) -> Iterable[GaugeMetricFamily]:
        hub = self.hub
        up = GaugeMetricFamily("chuhan_redis_up", "1 while the hub's Redis subscription is up")
        up.add_metric([], 1.0 if hub.connected else 0.0)
        counts = GaugeMetricFamily(
            "chuhan_redis_messages", "Hub messages since start", labels=["what"]
        )
        for what in ("published", "received", "publish_failures", "reconnects"):
            counts.add_metric([what], float(getattr(hub, what)))
        return [up, counts]


class _SharedQueue(Collector):
    """The shared AI queue (``CHUHAN_AI_SHARED``): the same figures from every instance."""

    def __init__(self, pool: AIPool) -> None:
        self.pool = pool

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return self._families()

    def _families(self) -> list[GaugeMetricFamily]:
        return [
            GaugeMetricFamily(
                "chuhan_ai_shared_jobs", "AI jobs in the shared queue", labels=["state"]
            ),
            GaugeMetricFamily(
                "chuhan_ai_shared_workers", "Worker processes taking jobs from the shared queue"
            ),
            GaugeMetricFamily(
                "chuhan_ai_shared_oldest_wait_seconds",
                "How long the oldest job waiting in the shared queue has waited",
            ),
        ]

    def collect(self) -> Iterable[GaugeMetricFamily]:
        jobs, workers, oldest = self._families()
        try:
            state = self.pool.queue_state()
        except Exception:  # Redis away: the scrape still reports the rest
            return []
        jobs.add_metric(["waiting"], state["queued"])
        jobs.add_metric(["running"], state["running"])
        workers.add_metric([], state["workers"])
        oldest.add_metric([], state["oldest_wait_seconds"])
        return [jobs, workers, oldest]
