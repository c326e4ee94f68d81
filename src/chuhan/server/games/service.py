"""The game service: what the HTTP API and the WebSocket both call.

It reads and changes games through the :class:`~.db.store.Store` (in worker threads: the
database is synchronous), starting a change from the game as this instance last knew it
(:mod:`.games.known`), tells the :class:`~.hub.local.Hub` about new events, and drives the AI:
whenever an AI game waits for the AI, one task per game asks the worker pool for a move and
applies it with the same exactly-once update as a human move (SPEC Z4). At start, every
game that was waiting for the AI gets its move computed again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from ...rules.janggi import DEFAULT_SETUP, SETUPS
from ..ai.pool import AIBusyError, AIJob, AIPool, JobKind
from ..background import cancel_all, release
from ..db.database import Database
from ..hub.local import Hub, News
from ..limits.spending import Spending
from ..protocol.messages import BusyNotice
from ..records import (
    Change,
    GameKind,
    GameOptions,
    GameRecord,
    JanggiSetups,
    Player,
    StaleGameError,
    utcnow,
)
from ..refusal import GameActionError
from ..settings import Settings
from . import changes as rules_of
from . import views
from .known import KnownGames, decide_and_commit
from .views import viewer_of

log = logging.getLogger("chuhan.games")


@dataclass(frozen=True)
class NewGame:
    """A validated request to create a game (SPEC P1, P6)."""

    kind: GameKind
    variant: str
    level: str | None = None
    color: str = "random"
    setup: str | None = None
    setup_other: str | None = None
    bikjang: str = "off"
    rules: str = "casual"
    abandon_pending: bool = False


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(12)}"


def ai_seed(game_id: str, ply: int) -> int:
    """The AI's seed for one move: reproducible per game and ply, different across games."""
    return int.from_bytes(hashlib.sha256(f"{game_id}:{ply}".encode()).digest()[:4], "big")


class GameService:
    def __init__(
        self, db: Database, hub: Hub, pool: AIPool, settings: Settings, spending: Spending
    ) -> None:
        self.db = db  # ``await self.db(fn, *args)``: ``fn`` in a database thread
        self.store = db.store
        self.spending = spending  # the creation budgets (limits/spending.py)
        self.hub = hub
        self.pool = pool
        self.settings = settings
        self._ai_tasks: dict[str, asyncio.Task[None]] = {}
        self._create_locks: dict[str, asyncio.Lock] = {}
        self._closing = False
        # Called with each committed change and the seconds it took (``/metrics``).
        self.change_observers: list[Callable[[Change, float], None]] = []
        # Called with each committed change before it is announced (a test's fault).
        self.commit_observers: list[Callable[[Change], None]] = []
        self.known = KnownGames()
        hub.on_news(self.known.heard)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Resume every AI game that waits for the AI (the database migrated)."""
        waiting = await self.db(self.store.ongoing_games, None, "ai")
        resumed = 0
        for game in waiting:
            if rules_of.ai_to_move(game):
                self.ensure_ai(game)
                resumed += 1
        log.info("server started", extra={"ongoing_ai_games": len(waiting), "ai_resumed": resumed})

    async def stop(self) -> None:
        self._closing = True
        await cancel_all(self._ai_tasks.values())
        self.pool.shutdown()

    # ------------------------------------------------------------------ reading games

    async def game_for(self, player: Player | None, game_id: str) -> GameRecord:
        """The player's game, expired if its time is up (SPEC P2).

        Raises GameActionError ``not_found`` for an unknown game or someone else's.
        """
        game = await self.db(self.store.game, game_id) if len(game_id) <= 64 else None
        if game is None or player is None or game.player_id != player.id:
            raise GameActionError("not_found", "no such game")
        return await self._expire_if_due(game)

    async def current_game(self, game_id: str) -> GameRecord:
        """The game as stored now (expired if due). Raises GameActionError ``not_found``."""
        game = await self.db(self.store.game, game_id)
        if game is None:
            raise GameActionError("not_found", "no such game")
        return await self._expire_if_due(game)

    async def _expire_if_due(self, game: GameRecord) -> GameRecord:
        if rules_of.is_expired(game, utcnow()):
            game = await self.apply(game.id, lambda g: rules_of.expire(g) if g.ongoing else None)
        return game

    async def pending_game(self, player: Player) -> GameRecord | None:
        """The player's pending AI game, if any (expired ones are closed on the way)."""
        for game in await self.db(self.store.ongoing_games, player.id, "ai"):
            game = await self._expire_if_due(game)
            if game.ongoing:
                return game
        return None

    async def state(self, game: GameRecord) -> dict[str, Any]:
        """The game as its player sees it, built in a worker thread: a cold read replays the
        whole game, which must not hold the event loop (SPEC Z7)."""
        return await asyncio.to_thread(views.state_for, game, viewer_of(game))

    # ------------------------------------------------------------------ changing games

    async def apply(
        self, game_id: str, decide: Callable[[GameRecord], Change | None]
    ) -> GameRecord:
        """Take the game, let ``decide`` compute a change, commit it, announce it.

        The game is this instance's latest copy when it has one (:mod:`.games.known`), else read.
        ``decide`` may return None (nothing to do) or raise GameActionError; either, decided
        on a copy, is decided again on a fresh read before it counts. A change made from an
        out-of-date game is refused by the database and decided again on a fresh read.
        Returns the game as committed.
        """
        started = time.perf_counter()

        async def read() -> GameRecord | None:
            game: GameRecord | None = await self.db(self.store.game, game_id)
            return game

        async def commit(game: GameRecord, change: Change) -> Change | None:
            try:
                await self.db(
                    self.store.commit_change,
                    change.before,
                    change.after,
                    change.events,
                    change.award,
                )
            except StaleGameError:
                self.known.forget(game_id)
                return None
            return change

        game, change = await decide_and_commit(
            lambda: self.known.get(game_id), read, decide, commit, GameActionError, "game"
        )
        if change is None:
            self.known.remember(game)
            return game
        self.known.remember(change.after)
        for committed in self.commit_observers:
            committed(change)
        await self.hub.publish(game_id, change.after.seq, News.of(change.after, change.events))
        for observe in self.change_observers:
            observe(change, time.perf_counter() - started)
        if change.after.status != "ongoing":
            log.info(
                "game finished",
                extra={
                    "game": game_id,
                    "result": change.after.result,
                    "points_awarded": change.after.points_awarded,
                },
            )
        return change.after

    async def create_game(self, player: Player, request: NewGame) -> GameRecord:
        """SPEC P1, P2, P6. Raises GameActionError ``bad_request`` or ``pending_game`` (P2:
        with the pending game's state: creating another needs a confirmation),
        TooManyError when the player (or address block) started too many."""
        _validate_new_game(request)
        if request.kind != "ai":
            await self.spending.spend("games", player.id)
            return await self._create_game(player, request)
        # One pending AI game per player (P2): two creations by one player never interleave.
        lock = self._create_locks.setdefault(player.id, asyncio.Lock())
        try:
            async with lock:
                pending = await self.pending_game(player)
                if pending is not None and not request.abandon_pending:
                    raise GameActionError(
                        "pending_game",
                        "you have a game against the AI in progress; confirm to abandon it",
                        pending=await self.state(pending),
                    )
                # Counted before the pending game is abandoned: a refused creation keeps it.
                await self.spending.spend("games", player.id)
                if pending is not None:
                    await self.apply(
                        pending.id, lambda g: rules_of.abandon(g) if g.ongoing else None
                    )
                return await self._create_game(player, request)
        finally:
            if not lock.locked():
                self._create_locks.pop(player.id, None)

    async def _create_game(self, player: Player, request: NewGame) -> GameRecord:
        game_id = new_id("g")
        names = rules_of.side_names(request.variant)
        human_side: int | None = None
        if request.kind == "ai":
            human_side = (
                secrets.randbelow(2) if request.color == "random" else names.index(request.color)
            )
        options: GameOptions = {"rules": request.rules}
        if request.variant == "janggi":
            setups = await self._janggi_setups(game_id, request, human_side)
            options = {"setup": setups, "bikjang": request.bikjang}
        start_fen, secret = rules_of.new_start(request.variant, options)
        now = utcnow()
        game = GameRecord(
            id=game_id,
            kind=request.kind,
            variant=request.variant,
            level=request.level if request.kind == "ai" else None,
            player_id=player.id,
            human_side=human_side,
            options=options,
            secret=secret,
            start_fen=start_fen,
            created_at=now,
            expires_at=now + timedelta(seconds=self.settings.game_ttl_seconds),
            updated_at=now,
        )
        start_event = rules_of.event("start")
        await self.db(self.store.insert_game, game, [start_event])
        log.info(
            "game created",
            extra={
                "game": game.id,
                "player": player.id,
                "kind": game.kind,
                "variant": game.variant,
                "ai_level": game.level,
                "human_side": human_side,
            },
        )
        self.ensure_ai(game)
        return game

    async def _janggi_setups(
        self, game_id: str, request: NewGame, human_side: int | None
    ) -> JanggiSetups:
        """SPEC J3: the player's setup choice(s); the AI chooses its own."""
        cho_default, han_default = DEFAULT_SETUP.split(":")
        mine = request.setup or (han_default if human_side == 1 else cho_default)
        if request.kind == "local":
            return {"cho": mine, "han": request.setup_other or han_default}
        assert human_side is not None
        ai_side = 1 - human_side
        # J3: Han chooses first; Cho chooses after seeing Han's choice.
        seen = {"opponent_setup": mine} if ai_side == 0 else {}
        job = AIJob("setup", "janggi", options=seen, side=ai_side, seed=ai_seed(game_id, -1))
        try:
            theirs = str(await self.pool.submit(job))
        except Exception:
            log.exception("AI setup choice failed; using a random one", extra={"game": game_id})
            theirs = secrets.choice(SETUPS)
        return {"cho": mine, "han": theirs} if human_side == 0 else {"cho": theirs, "han": mine}

    # ------------------------------------------------------------------ client actions

    async def move(self, game: GameRecord, ply: int, text: str) -> tuple[GameRecord, int]:
        """Play the owner's move (SPEC Z1, Z4, P5); returns the game and the acknowledged ply.

        A repeat of an accepted move is acknowledged without being applied again.
        """
        mover = viewer_of(game)
        after = await self.apply(game.id, lambda g: rules_of.play_move(g, ply, text, mover))
        if after.seq != game.seq and after.ply == ply + 1:
            log.info("move played", extra={"game": game.id, "ply": ply, "move": after.moves[ply]})
        self.ensure_ai(after)
        return after, ply

    async def undo(self, game: GameRecord) -> GameRecord:
        after = await self.apply(game.id, lambda g: rules_of.undo(g, viewer_of(g)))
        self.ensure_ai(after)
        return after

    async def resign(self, game: GameRecord) -> GameRecord:
        def decide(g: GameRecord) -> Change:
            side = g.human_side if g.kind == "ai" else rules_of.turn_of(g)
            assert side is not None
            return rules_of.resign(g, side)

        return await self.apply(game.id, decide)

    async def offer_draw(self, game: GameRecord) -> GameRecord:
        """SPEC A5 (AI games: the engine answers) and E4 (local: both people agreed)."""
        if not game.ongoing:
            raise GameActionError("game_over", "the game is over")
        if game.kind == "local":
            return await self.apply(
                game.id, lambda g: rules_of.agree_draw(g) if g.ongoing else None
            )
        assert game.human_side is not None
        job = self._job(game, "draw", 1 - game.human_side)
        try:
            accepts = bool(await self.pool.submit(job))
        except AIBusyError:
            raise GameActionError("busy", "the AI is busy; retry in a moment") from None
        seq = game.seq

        def decide(g: GameRecord) -> Change:
            if g.seq != seq:
                raise GameActionError("stale", "the game changed; offer again")
            return rules_of.agree_draw(g) if accepts else rules_of.decline_draw(g)

        return await self.apply(game.id, decide)

    async def hint(self, game: GameRecord) -> str:
        """SPEC A4: a move suggestion for the player to move. Raises GameActionError."""
        if not game.ongoing:
            raise GameActionError("game_over", "the game is over")
        turn = rules_of.turn_of(game)
        if game.kind == "ai" and turn != game.human_side:
            raise GameActionError("not_your_turn", "a hint is for your own turn")
        if game.player_id:
            await self.refuse_advice_while_online(game.player_id)
        try:
            return str(await self.pool.submit(self._job(game, "hint", turn)))
        except AIBusyError:
            raise GameActionError("busy", "the AI is busy; retry in a moment") from None

    async def refuse_advice_while_online(self, player_id: str) -> None:
        """No engine advice (hints, analyses, imports of a position) for a player seated in an
        ongoing online game. Raises GameActionError ``playing_online``."""
        if await self.db(self.store.playing_online, player_id):
            raise GameActionError(
                "playing_online",
                "you are playing an online game: hints, analyses and imports wait until it is over",
            )

    def _job(self, game: GameRecord, kind: JobKind, side: int) -> AIJob:
        """An AI job for ``side``; in jieqi it carries only that side's view (SPEC A3, Z2)."""
        job = AIJob(
            kind,
            game.variant,
            level=game.level or "advanced",
            seed=ai_seed(game.id, game.ply),
            side=side,
            movetime=self.settings.ai_movetime,
            owner=game.player_id or "",  # its player's fair share of the AI (ai/pool.py)
            game=game.id if kind == "move" else "",  # its worker's kept tables (ai/pool.py)
        )
        if game.variant == "jieqi":
            view = rules_of.board_of(game).view(side)  # type: ignore[attr-defined]
            return replace(job, view=view)
        fen = game.start_fen if game.variant == "xiangqi" else None
        return replace(job, fen=fen, options=rules_of.board_options(game), moves=tuple(game.moves))

    # ------------------------------------------------------------------ the AI's turn

    def ensure_ai(self, game: GameRecord) -> None:
        """Start the AI's turn for ``game`` unless it is not the AI's turn or already running."""
        if self._closing or not rules_of.ai_to_move(game):
            return
        task = self._ai_tasks.get(game.id)
        if task is not None and not task.done():
            return
        self._ai_tasks[game.id] = asyncio.get_running_loop().create_task(self._ai_turn(game.id))

    async def _ai_turn(self, game_id: str) -> None:
        attempt = 0
        announced_at: int | None = None
        try:
            while not self._closing:
                game = await self.db(self.store.game, game_id)
                if game is None or not rules_of.ai_to_move(game):
                    return
                game = await self._expire_if_due(game)
                if not game.ongoing:
                    return
                if announced_at != game.ply:
                    game = await self.apply(
                        game_id, lambda g: rules_of.thinking(g) if rules_of.ai_to_move(g) else None
                    )
                    announced_at = game.ply
                    if not rules_of.ai_to_move(game):
                        return
                assert game.human_side is not None
                job = self._job(game, "move", 1 - game.human_side)
                try:
                    move = str(await self.pool.submit(job))
                except AIBusyError:
                    notice = BusyNotice(
                        message="the AI is busy; retrying",
                        retry_in=self.settings.ai_retry_seconds,
                    )
                    await self.hub.notice(game_id, notice.wire())
                    await asyncio.sleep(self.settings.ai_retry_seconds)
                    continue
                except Exception:
                    attempt += 1
                    log.exception("AI move failed", extra={"game": game_id, "attempt": attempt})
                    if attempt >= 5:
                        return
                    await asyncio.sleep(self.settings.ai_retry_seconds * attempt)
                    continue
                history = game.moves
                after = await self.apply(game_id, _ai_reply(history, move))
                if after.moves != history:
                    log.info("ai moved", extra={"game": game_id, "ply": len(history), "move": move})
                if not rules_of.ai_to_move(after):
                    return
        except Exception:  # a cancel (stop) is a BaseException and passes through
            log.exception("AI turn failed", extra={"game": game_id})
        finally:
            release(self._ai_tasks, game_id)

    async def wait_for_ai(self, game_id: str) -> None:
        """Wait until the AI task of the game (if any) is done (tests and shutdown)."""
        task = self._ai_tasks.get(game_id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)


def _ai_reply(history: list[str], move: str) -> Callable[[GameRecord], Change | None]:
    """The change that plays the AI's ``move``, unless the game moved on while it thought."""

    def decide(game: GameRecord) -> Change | None:
        if game.moves != history or not rules_of.ai_to_move(game):
            return None  # an undo, a resignation, another instance's AI…
        assert game.human_side is not None
        return rules_of.play_move(game, len(history), move, 1 - game.human_side)

    return decide


def _validate_new_game(request: NewGame) -> None:
    if request.kind not in rules_of.KINDS:
        raise GameActionError("bad_request", f"kind must be one of {', '.join(rules_of.KINDS)}")
    try:
        names = rules_of.side_names(request.variant)
    except KeyError:
        raise GameActionError("bad_request", f"unknown variant {request.variant!r}") from None
    if request.kind == "ai":
        if request.level not in rules_of.LEVELS:
            raise GameActionError(
                "bad_request", f"level must be one of {', '.join(rules_of.LEVELS)}"
            )
        if request.color not in (*names, "random"):
            raise GameActionError(
                "bad_request",
                f"color must be {names[0]}, {names[1]} or random for {request.variant}",
            )
    if request.variant == "janggi":
        for setup in (request.setup, request.setup_other):
            if setup is not None and setup not in SETUPS:
                raise GameActionError("bad_request", f"setup must be one of {', '.join(SETUPS)}")
        if request.bikjang not in ("off", "points"):
            raise GameActionError("bad_request", "bikjang must be off or points")
    if request.rules not in ("casual", "wxf") or (
        request.variant == "janggi" and request.rules != "casual"
    ):
        raise GameActionError("bad_request", "rules must be casual or wxf (xiangqi and jieqi)")
