"""The engine analysis of a finished game (N4): what it evaluates (:func:`analysis_tasks`),
how the evaluations read as judged moves (:func:`analysis_plies`, :func:`analysis_answer`;
:mod:`chuhan.engine.analysis` says how moves are judged), and :class:`AnalysisRunner`, which
runs analyses in the AI workers behind live games, fairly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ...engine.analysis import clamp, judge, mate_in
from ...rules.jieqi import JieqiBoard
from ..ai.pool import AIBusyError, AIJob, FairTurns
from ..background import cancel_all, release
from ..budget import TooManyError
from ..db.reviews import ReviewStore
from ..records import GameRecord, StoredAnalysis, utcnow
from . import changes as rules_of
from .service import GameService

log = logging.getLogger("chuhan.review")


@dataclass(frozen=True)
class Task:
    """One evaluation of an analysis: the position after ``ply`` half-moves, as ``view``
    (a side number: what that player knew then, jieqi) or everything (None)."""

    ply: int
    view: int | None


def analysis_tasks(game: GameRecord) -> list[Task]:
    """What an analysis evaluates. Every position once; in jieqi each position from its
    mover's view, and after each move once more as the side that made it foresaw it (its
    view before the move, a piece the move turns up averaged over what it could have been:
    :func:`~chuhan.engine.analysis.evaluate_after`), so that a move is judged only by what its
    player could know (Z2, A3), never by the luck of a reveal."""
    if game.variant != "jieqi":
        return [Task(ply, None) for ply in range(game.ply + 1)]
    first = rules_of.first_turn(game.start_fen)
    tasks = [Task(0, first)]
    for ply in range(1, game.ply + 1):
        mover = (first + ply - 1) % 2
        tasks += [Task(ply, 1 - mover), Task(ply, mover)]
    return tasks


def analysis_plies(game: GameRecord, evaluations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answer's ``plies`` from the evaluations made so far: for each position reached,
    its ``score`` (centipawns for the first mover, within ±SCORE_CAP) and the same in
    ``pawns`` (one decimal), ``mate`` (moves to mate: N when the first mover mates, -N when
    it is mated, 0 when the game ended in mate there; else None), the engine's ``best`` move
    there and its line (``pv``, canonical, and ``line``, ``{notation: [texts]}``), and for the
    move that led to it its ``loss`` and ``class``; a marked move (``class``) also gets the
    ``better`` move, the best one of the position before in each notation (else None), and
    the centipawns it keeps over the one played (``gain``, = ``loss``; else 0). Analyses
    stored before lines were kept have no ``pv``: their lines are empty and ``better``
    is None."""
    first = rules_of.first_turn(game.start_fen)
    own: dict[int, dict[str, Any]] = {}
    after: dict[int, dict[str, Any]] = {}
    for item in evaluations:
        ply, view = item["ply"], item.get("view")
        to_move = (first + ply) % 2
        if view is None or view == to_move:
            own[ply] = item
        else:
            after[ply] = item
    plies = []
    for ply in sorted(own):
        item = own[ply]
        sign = 1 if (first + ply) % 2 == 0 else -1
        score = sign * clamp(item["score"])
        mate = item["mate"] if "mate" in item else mate_in(item["score"])
        entry: dict[str, Any] = {
            "ply": ply,
            "score": score,
            "pawns": round(score / 100, 1),
            "mate": None if mate is None else sign * mate,
            "best": item["best"],
            "pv": list(item.get("pv") or []),
            "line": dict(item.get("line") or {}),
            "class": None,
            "loss": 0,
            "better": None,
            "gain": 0,
        }
        before = own.get(ply - 1)
        seen_after = after.get(ply, item if game.variant != "jieqi" else None)
        if ply > 0 and before is not None and seen_after is not None:
            loss, kind = judge(
                before["score"], -seen_after["score"], game.moves[ply - 1], before["best"]
            )
            entry["loss"], entry["class"] = loss, kind
            if kind is not None:
                written = before.get("line") or {}
                better = {name: texts[0] for name, texts in written.items() if texts}
                entry["better"], entry["gain"] = better or None, loss
        plies.append(entry)
    return plies


class AnalysisRunner:
    """Runs analyses in the AI workers at a lower priority than live games, fairly.

    An analysis sends one position at a time (a fixed node budget, a fraction of a second)
    and only when a worker is idle with no live job waiting; it never takes the last worker
    (with one worker: never while a live job runs), so a live game's AI reply never queues
    behind more than nothing. At most ``max_running`` positions are out at once per instance
    (fewer with fewer workers), handed out round-robin over address blocks and their players
    (:class:`~.ai.pool.FairTurns`): another player's analysis waits for one position
    of each other asker, not for their whole queue. A player has at most ``per_player``
    analyses waiting or running here, an address block ``per_address``; one more is refused
    (429 ``analysis_queue_full``). Progress is stored about once a second, so an analysis cut
    short (a restart) goes on from where it was when asked again.
    """

    POLL_SECONDS = 0.05
    SAVE_SECONDS = 1.0
    STALE_SECONDS = 30.0  # a running analysis not saved for this long lost its task
    RETRY_SECONDS = 5.0  # what a refused asker is told to wait: a few positions' time

    def __init__(
        self,
        service: GameService,
        reviews: ReviewStore,
        nodes: int,
        max_running: int = 2,
        per_player: int = 3,
        per_address: int = 10,
    ) -> None:
        self.service = service
        self.reviews = reviews
        self.nodes = nodes
        self.per_player = per_player
        self.per_address = per_address
        # As many turns as positions may be out at once (``_may_send``): a turn held while
        # waiting for a worker would let its holder's next position pass the others.
        pool = service.pool
        self._turns = FairTurns(1 if pool.shared else min(max_running, pool.workers - 1))
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._askers: dict[str, tuple[str, str]] = {}  # game id: (address block, player)
        self._players: Counter[str] = Counter()
        self._blocks: Counter[str] = Counter()
        self._in_flight = 0

    def running(self, game_id: str) -> bool:
        task = self._tasks.get(game_id)
        return task is not None and not task.done()

    def _lost(self, game_id: str, stored: StoredAnalysis | None) -> bool:
        """True when the stored analysis needs a task here to go on."""
        if stored is None:
            return True
        if stored.status == "done" or self.running(game_id):
            return False
        return stored.status != "running" or _stale(stored, self.STALE_SECONDS)

    def _refusal(self, owner: str, block: str) -> TooManyError | None:
        """Why one more analysis for ``owner`` from ``block`` is refused, or None."""
        budgets = (
            (owner, self._players, self.per_player, "you already have"),
            (block, self._blocks, self.per_address, "your network already has"),
        )
        for key, counter, limit, who in budgets:
            if key and counter[key] >= limit:
                return TooManyError(
                    "analysis_queue_full",
                    f"{who} {limit} analyses waiting or running; ask again when one is done",
                    self.RETRY_SECONDS,
                )
        return None

    async def start(self, game: GameRecord, owner: str = "", block: str = "") -> StoredAnalysis:
        """Queue the game's analysis (idempotent) for ``owner`` asking from ``block`` and make
        sure it runs here. Raises TooManyError when they have their share queued already
        (asking again for one queued or done costs nothing)."""
        before = await self.service.db(self.reviews.analysis, game.id)
        if self._lost(game.id, before):
            refused = self._refusal(owner, block)
            if refused is not None:
                raise refused
        if before is None:  # a new analysis: the asker's budget
            await self.service.spending.spend("analyses", owner or None)
        tasks = analysis_tasks(game)
        await self.service.db(self.reviews.begin_analysis, game.id, self.nodes, len(tasks))
        stored = await self.service.db(self.reviews.analysis, game.id)
        assert stored is not None
        if self._lost(game.id, stored):
            refused = self._refusal(owner, block)  # another request may have taken the last
            if refused is not None:
                raise refused
            self._launch(game, owner, block)
        return stored

    async def resume_if_lost(
        self, game: GameRecord, stored: StoredAnalysis, owner: str = "", block: str = ""
    ) -> None:
        """Go on with an analysis whose task was lost (a restart), on the asker's share; an
        asker without one left just reads it as it is."""
        waiting = stored.status in ("queued", "running") and not self.running(game.id)
        stale = waiting and _stale(stored, self.STALE_SECONDS)
        if stale and self._refusal(owner, block) is None:
            self._launch(game, owner, block)

    def _launch(self, game: GameRecord, owner: str, block: str) -> None:
        self._askers[game.id] = (block, owner)
        self._players[owner] += 1
        self._blocks[block] += 1
        self._tasks[game.id] = asyncio.get_running_loop().create_task(self._run(game))

    async def stop(self) -> None:
        await cancel_all(self._tasks.values())

    async def _run(self, game: GameRecord) -> None:
        block, owner = self._askers[game.id]
        try:
            await self._analyse(game, block, owner)
        except Exception:  # a cancel (stop) is a BaseException and passes through
            log.exception("analysis failed", extra={"game": game.id})
            stored = await self.service.db(self.reviews.analysis, game.id)
            done = stored.evaluations if stored else []
            engine = stored.engine if stored else ""
            await self.service.db(self.reviews.save_analysis, game.id, "failed", engine, done)
        finally:
            if release(self._tasks, game.id):
                del self._askers[game.id]
            for counter, key in ((self._players, owner), (self._blocks, block)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]

    async def _analyse(self, game: GameRecord, block: str, owner: str) -> None:
        stored = await self.service.db(self.reviews.analysis, game.id)
        evaluations = list(stored.evaluations) if stored else []
        engine = stored.engine if stored else ""
        tasks = analysis_tasks(game)
        saved: float | None = None  # "running" is stored at the first turn
        for task in tasks[len(evaluations) :]:
            async with self._turns.turn(block, owner):
                if saved is None:
                    await self.service.db(
                        self.reviews.save_analysis, game.id, "running", engine, evaluations
                    )
                    saved = time.monotonic()
                answer = await self._evaluate(game, task)
            engine = engine or str(answer.get("engine", ""))
            evaluations.append(
                {
                    "ply": task.ply,
                    "view": task.view,
                    "score": answer["score"],
                    "best": answer["best"],
                    # The line, written on the board evaluated (a jieqi player's
                    # view, Z2) by the worker, so that reading an analysis replays nothing.
                    "mate": answer.get("mate"),
                    "pv": answer.get("pv", []),
                    "line": answer.get("line", {}),
                }
            )
            # Progress is stored about once a second (not per position): each save is a
            # commit, which on SQLite would queue live games' moves behind the analysis.
            if time.monotonic() - saved >= self.SAVE_SECONDS and len(evaluations) < len(tasks):
                await self.service.db(
                    self.reviews.save_analysis, game.id, "running", engine, evaluations
                )
                saved = time.monotonic()
        await self.service.db(self.reviews.save_analysis, game.id, "done", engine, evaluations)
        log.info("analysis done", extra={"game": game.id, "positions": len(tasks)})

    def _job(self, game: GameRecord, task: Task) -> AIJob:
        moves = tuple(game.moves[: task.ply])
        if game.variant == "jieqi":
            # After a move, from its mover's view: the view before it and the move, which
            # the worker averages over what a piece it turns up could have been (A3).
            mover = (rules_of.first_turn(game.start_fen) + task.ply - 1) % 2
            played = moves[-1:] if task.ply and task.view == mover else ()
            board = rules_of.board_of(game, list(moves[: len(moves) - len(played)]))
            assert isinstance(board, JieqiBoard)
            # A game kept from one player's view (a puzzle's, B9) knows only that (Z2).
            knower = task.view if board.has_secret else board.viewer
            view = board.view(knower, game_over=False)
            return AIJob("analysis", game.variant, view=view, moves=played, nodes=self.nodes)
        fen = rules_of.start_fen_of(game)
        options = rules_of.board_options(game)
        return AIJob(
            "analysis", game.variant, fen=fen, options=options, moves=moves, nodes=self.nodes
        )

    def _may_send(self) -> bool:
        """A position goes to the pool only to an idle worker, never to the last one."""
        pool = self.service.pool
        if pool.shared:  # the shared queue has its own workers: one position at a time
            return self._in_flight == 0
        live = pool.pending - self._in_flight
        idle = pool.workers - pool.pending
        if pool.workers == 1:
            return idle == 1 and live == 0
        return idle >= 1 and self._in_flight < pool.workers - 1

    async def _evaluate(self, game: GameRecord, task: Task) -> dict[str, Any]:
        job = self._job(game, task)
        failures = 0
        while True:
            if not self._may_send():
                await asyncio.sleep(self.POLL_SECONDS)
                continue
            self._in_flight += 1
            try:
                return dict(await self.service.pool.submit(job))
            except AIBusyError:
                await asyncio.sleep(self.POLL_SECONDS * 4)
            except Exception:
                failures += 1
                if failures >= 3:
                    raise
                await asyncio.sleep(0.5 * failures)
            finally:
                self._in_flight -= 1


def _stale(stored: StoredAnalysis, seconds: float) -> bool:
    moment = (
        stored.updated_at
        if stored.updated_at.tzinfo
        else stored.updated_at.replace(tzinfo=utcnow().tzinfo)
    )
    return (utcnow() - moment).total_seconds() > seconds


def analysis_answer(game: GameRecord, stored: StoredAnalysis | None) -> dict[str, Any]:
    if stored is None:
        return {"status": "none", "progress": 0.0, "engine": None, "plies": []}
    positions = max(1, stored.positions)
    status = stored.status
    return {
        "status": status,
        "progress": 1.0 if status == "done" else round(len(stored.evaluations) / positions, 4),
        "engine": stored.engine or None,
        "nodes": stored.nodes,
        "plies": analysis_plies(game, stored.evaluations),
    }
