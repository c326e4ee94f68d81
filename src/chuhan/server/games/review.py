"""After the game (N4): records, imports, share links and engine analysis over HTTP.

- ``GET /api/games/{id}/record?notation=…&format=pgn|gib`` — the game's record (SPEC N4) as
  ``text/plain``, for its players at any time and for share-link holders (``share=``) once
  it is over. While a jieqi game is on the record is written from the asking player's view:
  moves and reveals (public, Q3) and the commitment, never an arrangement (Z2, Q5).
- ``POST /api/records`` — a record's text (PGN in ICCS/WXF/Chinese/coordinates, ``.gib``)
  becomes a finished game of kind ``imported`` that its importer may review and share; a bad
  record is a 400 naming the line.
- ``POST /api/games/{id}/share`` — the game's share token (192 random bits, made once);
  ``GET /api/shared/{token}`` — the finished game as anyone holding it may see it (jieqi:
  everything, with the arrangement and salt to check the commitment, Q7); a game still on
  answers ``game_ongoing`` and shows nothing.
- ``POST``/``GET /api/games/{id}/analysis`` — the engine analysis of a finished game
  (:class:`AnalysisRunner`; :mod:`chuhan.engine.analysis` says how moves are judged).

Every game state sent here is the one per-viewer projection (``views.state_for``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from ...engine.analysis import clamp, judge, mate_in
from ...rules import RulesError, make_board
from ...rules.jieqi import JieqiBoard
from ...rules.notation import write_move
from ...rules.record import (
    GameRecord as ReadRecord,
)
from ...rules.record import (
    RecordError,
    RecordTooLongError,
    decode_record,
    default_format,
    push_played,
    read_record,
    write_gib,
    write_record,
)
from ..addresses import CLIENT_BLOCK
from ..ai.pool import AIBusyError, AIJob, FairTurns
from ..background import cancel_all, release
from ..budget import TooManyError
from ..db.reviews import ReviewStore
from ..identity import Me
from ..names import BadText, readable
from ..records import GameRecord, Player, StoredAnalysis, utcnow
from ..refusal import GameActionError
from . import changes as rules_of
from . import views
from .service import GameService, new_id
from .views import viewer_of

log = logging.getLogger("chuhan.review")
UNDECIDED_REASONS = ("abandoned", "expired", "interrupted", "unfinished")
RECORD_TAGS = ("Event", "Site", "Date", "Round", "Red", "Black", "RedTeam", "BlackTeam")
MAX_TAG_LENGTH = 80


# ---------------------------------------------------------------------- records


def result_tags(game: GameRecord) -> tuple[str, str | None]:
    """The record's ``Result`` and ``Termination`` for the stored game (E5)."""
    if game.ongoing or game.result is None:
        return "*", None
    reason = game.result.get("reason")
    winner = game.result.get("winner")
    names = rules_of.side_names(game.variant)
    if winner in names:
        return ("1-0" if winner == names[0] else "0-1"), reason
    if reason in UNDECIDED_REASONS:
        return "*", reason
    return "1/2-1/2", reason


def event_of(game: GameRecord) -> str:
    """A record's ``Event`` tag (B7): what kind of game it was on Chu-Han."""
    if game.kind == "ai":
        return f"Chu-Han, against the AI ({game.level})"
    if game.kind == "local":
        return "Chu-Han, on one device"
    if game.options.get("paired"):
        rated = game.options.get("rated") or {}
        return "Chu-Han, rated game" if rated.get("counted") else "Chu-Han, paired game"
    return "Chu-Han, private room"


def record_text(
    game: GameRecord,
    viewer: int | None,
    notation: str,
    fmt: str,
    names: dict[int, str | None],
) -> str:
    """The game's record (PGN-style, or ``.gib`` for janggi) in ``notation``. Raises
    NotationError/ValueError for a notation or format the variant does not use."""
    board = views.known_board(game, viewer)
    result, termination = result_tags(game)
    if fmt == "gib":
        return write_gib(board, result=result, termination=termination)
    sides = rules_of.side_names(game.variant)
    tags: dict[str, str] = {}
    tags.update(game.options.get("record_tags") or {})
    tags.setdefault("Event", event_of(game))
    tags.setdefault("Site", "Chu-Han")
    tags.setdefault("Date", game.created_at.strftime("%Y.%m.%d"))
    rated = game.options.get("rated") or {}
    for side, color in ((0, "Red"), (1, "Black")):
        tag = color if game.variant != "janggi" else sides[side].title()
        # B7: both players' tags are always there ("?": unknown, as PGN writes it), and a
        # counted rated game gives each player's rating before it.
        tags.setdefault(tag, names.get(side) or "?")
        before = (rated.get(sides[side]) or {}).get("before")
        if rated.get("counted") and before is not None:
            tags.setdefault(f"{tag}Elo", str(before))
    if isinstance(board, JieqiBoard) and board.has_secret and not game.ongoing:
        # The arrangement is public once the game is over (Q5, Q7), however it ended.
        tags["Arrangement"], tags["Salt"] = board.reveal()
    return write_record(board, notation, result=result, termination=termination, tags=tags)


def positions(game: GameRecord) -> list[dict[str, Any]]:
    """Every position of the game, for stepping through it: ``{"ply", "fen", "turn",
    "in_check", "move"}`` (the move that led there). Only public facts: a FEN shows face-down
    jieqi pieces as ``X``/``x`` whoever asks (Z2)."""
    board = rules_of.start_board(game)
    names = board.SIDE_NAMES
    out = [
        {
            "ply": 0,
            "fen": board.fen(),
            "turn": names[board.turn],
            "in_check": board.is_check(),
            "move": None,
        }
    ]
    for ply, text in enumerate(game.moves, start=1):
        push_played(board, text, rules_of.reveal_at(game, ply - 1))
        out.append(
            {
                "ply": ply,
                "fen": board.fen(),
                "turn": names[board.turn],
                "in_check": board.is_check(),
                "move": text,
            }
        )
    return out


def imported_game(record: ReadRecord, player: Player, now: datetime) -> GameRecord:
    """A finished game of kind ``imported`` holding ``record`` (move for move, also past where
    our rules would have ended it: ``options.rules_end``). Raises GameActionError for a
    record the server cannot keep as a game."""
    board = record.board
    sides = board.SIDE_NAMES
    options: dict[str, Any] = {}
    secret: dict[str, Any] | None = None
    if record.variant == "janggi":
        options = {"bikjang": getattr(board, "bikjang", "off")}
        setup = getattr(make_board("janggi", record.start_fen), "setup", None)
        if setup is not None:  # else the game starts from the record's FEN (B9: a puzzle's)
            cho, han = setup.split(":")
            options["setup"] = {"cho": cho, "han": han}
    else:
        options["rules"] = board.rules  # [Rules "rules=wxf"]: how repetitions are judged (E1)
    if record.variant == "jieqi":
        if not isinstance(board, JieqiBoard) or not board.has_secret:
            raise GameActionError(
                "bad_record",
                "a jieqi record needs its [Arrangement] and [Salt] tags (a finished game's "
                "record has them)",
            )
        arrangement, salt = board.reveal()
        secret = {"arrangement": arrangement, "salt": salt}
    if record.rules_end is not None:
        options["rules_end"] = record.rules_end.as_json(sides)
    tags: dict[str, str] = {}
    for name in RECORD_TAGS:
        try:  # A tag is shown as a player's name is, and follows its rules
            value = readable(record.tags.get(name, ""))[:MAX_TAG_LENGTH]
        except BadText as exc:
            raise GameActionError("bad_record", f"the [{name}] tag: {exc.message}") from None
        if value:
            tags[name] = value
    if tags:
        options["record_tags"] = tags
    winner = {"1-0": sides[0], "0-1": sides[1]}.get(record.result)
    reason = (record.termination or "")[:40] or (
        "unfinished" if record.result == "*" else "unknown"
    )
    game = GameRecord(
        id=new_id("g"),
        kind="imported",
        variant=record.variant,
        player_id=player.id,
        options=options,
        secret=secret,
        start_fen=record.start_fen,
        moves=[str(move) for move in record.moves],
        status="finished",
        result={"winner": winner, "reason": reason, "points": None},
        created_at=now,
        expires_at=now,
        updated_at=now,
    )
    return game


# ---------------------------------------------------------------------- analysis


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


# ---------------------------------------------------------------------- routes


Share = Annotated[str | None, Query(max_length=64)]


def review_router(service: GameService, runner: AnalysisRunner) -> APIRouter:
    """The routes of this module, on ``service``'s store; analyses run on ``runner`` (stopped
    by the app, ``create_app``)."""
    reviews = runner.reviews
    router = APIRouter()

    async def access(
        game_id: str, player: Player | None, share: str | None
    ) -> tuple[GameRecord, int | None]:
        """The game and the viewer it is shown as: its player's side (None for a local or an
        imported game), or None for a share-link holder of a finished game. Raises
        GameActionError ``not_found`` for anyone else (a stranger learns nothing, Z2)."""
        game = await service.db(service.store.game, game_id) if len(game_id) <= 64 else None
        if game is not None and player is not None:
            if game.player_id == player.id:
                return game, viewer_of(game)
            if game.kind == "online":
                side = await service.db(reviews.online_side, game.id, player.id)
                if side is not None:
                    return game, side
        if game is not None and share and not game.ongoing:
            holder_of = await service.db(reviews.game_of_share, share)
            if holder_of == game.id:
                return game, None
        raise GameActionError("not_found", "no such game")

    async def names_of(game: GameRecord) -> dict[int, str | None]:
        if game.kind == "online":
            return await service.db(reviews.names, game.id)
        if game.kind == "ai" and game.player_id and game.human_side is not None:
            name = await service.db(reviews.player_name, game.player_id)
            # N4: the human's side has its tag too, named or not.
            human = name or "Chu-Han player"
            return {game.human_side: human, 1 - game.human_side: f"Chu-Han AI ({game.level})"}
        return {}

    @router.get("/api/games/{game_id}/record", response_class=PlainTextResponse)
    async def get_record(
        game_id: str,
        player: Me,
        notation: Literal["coords", "iccs", "wxf", "chinese", "korean"] | None = None,
        format: Literal["pgn", "gib"] = "pgn",
        share: Share = None,
    ) -> PlainTextResponse:
        game, viewer = await access(game_id, player, share)
        chosen = notation or default_format(game.variant)
        try:
            text = await asyncio.to_thread(
                record_text, game, viewer, chosen, format, await names_of(game)
            )
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        extension = "gib" if format == "gib" else "pgn"
        disposition = f'inline; filename="chuhan-{game.id}.{extension}"'
        return PlainTextResponse(text, headers={"Content-Disposition": disposition})

    @router.get("/api/games/{game_id}/notation")
    async def get_notation(
        game_id: str, player: Me, move: Annotated[str, Query(max_length=16)]
    ) -> dict[str, Any]:
        """U4, N1–N3: a legal move of the game's position now, written in each of its
        variant's notations before it is played ("Play C2.5?"), on the board as the viewer
        may know it (a jieqi face-down piece stays face down, Z2). Refused ``game_over``, or
        ``bad_request`` for a move that is not legal there."""
        game, viewer = await access(game_id, player, None)
        if not game.ongoing:
            raise GameActionError("game_over", "the game is over")

        def written() -> dict[str, str]:
            board = views.known_board(game, viewer)
            names = rules_of.NOTATIONS.NOTATIONS[game.variant]
            return {name: write_move(board, move, name) for name in names}

        try:
            texts = await asyncio.to_thread(written)
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        return {"move": move, "notation": texts}

    @router.get("/api/games/{game_id}/positions")
    async def get_positions(game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await access(game_id, player, share)
        return {"id": game.id, "positions": await asyncio.to_thread(positions, game)}

    @router.post("/api/records", status_code=201)
    async def import_record(request: Request, player: Me) -> dict[str, Any]:
        await service.refuse_advice_while_online(player.id)
        await service.spending.spend("imports", player.id)  # A bad record counts too
        limit = service.settings.max_body_bytes  # the app's guard refuses more before this
        data = b""
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise GameActionError("too_large", f"a record has at most {limit} bytes")
        text = decode_record(data)
        if not text.strip():
            raise GameActionError("empty_record", "the record is empty")
        try:
            record = await asyncio.to_thread(read_record, text)
        except RecordTooLongError as exc:
            raise GameActionError("too_many_moves", str(exc), line=exc.line) from None
        except RecordError as exc:
            raise GameActionError("bad_record", str(exc), line=exc.line) from None
        except RulesError as exc:
            raise GameActionError("bad_record", str(exc), line=None) from None
        try:
            game = imported_game(record, player, utcnow())
        except GameActionError as exc:  # bad_record: no line to blame
            raise exc.with_fields(line=None) from None
        start_event = rules_of.event("start")
        await service.db(service.store.insert_game, game, [start_event])
        log.info("record imported", extra={"game": game.id, "player": player.id})
        return await asyncio.to_thread(views.state_for, game, None)

    @router.post("/api/games/{game_id}/share")
    async def share_game(game_id: str, player: Me) -> dict[str, Any]:
        game, _ = await access(game_id, player, None)
        token = await service.db(reviews.share, game.id)
        return {"token": token, "path": f"/review/{token}", "available": not game.ongoing}

    @router.get("/api/shared/{token}")
    async def shared_game(token: str) -> dict[str, Any]:
        game_id = await service.db(reviews.game_of_share, token) if len(token) <= 64 else None
        game = await service.db(service.store.game, game_id) if game_id else None
        if game is None:
            raise GameActionError("not_found", "no such shared game")
        if game.ongoing:
            message = "the game is still being played; its review opens at the end"
            raise GameActionError("game_ongoing", message)
        return await asyncio.to_thread(views.state_for, game, None)

    @router.post("/api/games/{game_id}/analysis", status_code=202)
    async def start_analysis(game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await access(game_id, player, share)
        if game.ongoing:
            raise GameActionError("game_ongoing", "a game is analysed once it is over")
        await service.refuse_advice_while_online(player.id)
        stored = await runner.start(game, player.id, CLIENT_BLOCK.get())  # may be 429
        fresh = await service.db(reviews.analysis, game.id)
        return analysis_answer(game, fresh or stored)

    @router.get("/api/games/{game_id}/analysis")
    async def get_analysis(game_id: str, player: Me, share: Share = None) -> dict[str, Any]:
        game, _ = await access(game_id, player, share)
        await service.refuse_advice_while_online(player.id)
        stored = await service.db(reviews.analysis, game.id)
        if stored is not None:
            await runner.resume_if_lost(game, stored, player.id, CLIENT_BLOCK.get())
        return analysis_answer(game, stored)

    return router
