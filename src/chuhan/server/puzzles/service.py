"""The puzzles' service (SPEC B9): begin an attempt near the player's rating, judge each move,
hint, show the solution, rate, the puzzle of the day, the history. The data files are loaded
into the table on first use (:meth:`PuzzleService.ensure_loaded`): new puzzles are added, a
stored one keeps its rating.

- **Which puzzle.** Near the player's puzzle rating in the variant (a random offset of at
  most :data:`SPREAD`, so that two players of one rating do not meet the same puzzles in the
  same order), one they never tried, never the one they were given last. One indexed query
  (:meth:`~..db.puzzles.PuzzleStorage.nearest`); no engine, ever.
- **Rated.** Each rated attempt is one Glicko-2 rating period for the player against the
  puzzle and for the puzzle against the player: solved 1, solved after a hint ½ (assisted),
  failed or solution shown 0. Only a player's first attempt at a puzzle is rated (the daily
  puzzle too), so asking for solutions and coming back cannot farm a rating; and what one
  player's rating gains in a variant over an hour is bounded (``gain_per_hour``, Z8).
- **Streak.** Puzzles solved in a row without a hint; a failure or a shown solution ends it,
  a hint leaves it where it was.
- **Trust** (Z1, Z5). Every move is judged here against the stored line; the line is sent
  only once the attempt is over, one reply at a time before that; puzzles begun and
  actions taken spend budgets (:mod:`.limits`) as other writes do.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from sqlalchemy.engine import Connection

from ...rules import RulesError
from .. import glicko2
from ..addresses import CLIENT_BLOCK
from ..budget import Budget, LimitExceeded, Reservation, TooManyError
from ..db.database import Database
from ..db.limits import Limiter
from ..db.puzzle_attempts import Attempt, Ending, Moved
from ..db.puzzle_ratings import PuzzleRating
from ..db.puzzle_store import PuzzleStore
from ..db.puzzles import Puzzle
from ..games.changes import event
from ..games.service import new_id
from ..limits.spending import Spending
from ..records import GameOptions, GameRecord, Player, is_provisional, utcnow
from ..refusal import GameActionError
from ..rules_config import PuzzleSettings
from . import solving
from .catalog import VARIANTS, load_puzzles, usable_puzzles

log = logging.getLogger("chuhan.puzzles")
SPREAD = 100.0  # the next puzzle is rated within this of the player's rating, where it can be
CCPD = "ccpd"
SOLVED = Ending("solved", 1.0, "grow")
ASSISTED = Ending("solved", 0.5, "keep")
FAILED = Ending("failed", 0.0, "reset")
SHOWN = Ending("failed", 0.0, "reset", shown=True)


class _Slowed(Exception):
    """A begin's budget said to wait for its turn (:meth:`PuzzleService._charge`)."""


def too_many(exc: LimitExceeded) -> TooManyError:
    return TooManyError("too_many_puzzles", "too many puzzle moves; wait a little", exc.retry_after)


def rate(mine: glicko2.Rating, theirs: glicko2.Rating, score: float) -> glicko2.Rating:
    """``mine`` after one rating period against ``theirs`` scoring ``score``."""
    return glicko2.update(mine, [glicko2.Result(theirs, score)])


def daily_key(variant: str, day: date) -> str:
    """Where the puzzle of the day starts looking: the same for everyone on that UTC day."""
    digest = hashlib.sha1(f"{variant} {day.isoformat()}".encode()).hexdigest()[:10]
    return f"{variant}-{digest}"


def rating_json(rating: PuzzleRating) -> dict[str, Any]:
    return {
        "rating": round(rating.rating.rating),
        "provisional": is_provisional(rating.rating),
        "streak": rating.streak,
        "best_streak": rating.best_streak,
        "attempts": rating.attempts,
    }


def credit_of(puzzle: Puzzle) -> str | None:
    """The text a puzzle's source asks to be shown (the CCPD's CC BY 4.0 credit)."""
    credit = puzzle.source.get("credit")
    return str(credit) if credit else None


def attempt_json(attempt: Attempt, puzzle: Puzzle, rating: PuzzleRating) -> dict[str, Any]:
    """An attempt as its player sees it. Before its end: the position and the moves played,
    never the line ahead nor the themes (B9); after it: the whole line and the themes. The
    boards are worked out once per puzzle and state (:func:`.solving.shown`): cheap enough
    to answer on the event loop."""
    start = solving.shown(puzzle, "start", lambda: solving.start(puzzle))
    played, over = attempt.played, attempt.over
    answer: dict[str, Any] = {
        "id": attempt.id,
        "variant": puzzle.variant,
        "status": attempt.status,
        "puzzle": {
            "id": puzzle.id,
            "rating": round(puzzle.rating.rating),
            "plays": puzzle.plays,
            "credit": credit_of(puzzle),
            "source": puzzle.source.get("kind"),
        },
        "daily": attempt.daily,
        "solver": start.solver,
        "start_fen": start.fen,
        "position": dict(
            solving.shown(
                puzzle, "position", lambda: solving.position(puzzle, played, over), *played, over
            )
        ),
        "hinted": attempt.hinted,
        "shown": attempt.shown,
        "rated": attempt.rated,
        "rating": rating_json(rating),
        "themes": None,
        "solution": None,
        "change": None,
    }
    if attempt.over:
        answer["themes"] = list(puzzle.themes)
        answer["solution"] = dict(
            solving.shown(puzzle, "solution", lambda: solving.solution(puzzle))
        )
        if attempt.rated and attempt.rating_before is not None:
            answer["change"] = round(attempt.rating_after or 0) - round(attempt.rating_before)
    return answer


def analysis_record(puzzle: Puzzle, player: Player, now: datetime) -> GameRecord:
    """The puzzle and its whole line as a finished game of kind ``imported`` of ``player``'s
    (B9, B3): from the puzzle's FEN; janggi without a setup (the FEN is the start, J3's
    setups are only the game's first position); jieqi from the solver's view (no secret,
    Z2: the review and its analysis know only what the solver knew) with the line's
    reveals."""
    options: GameOptions = {"record_tags": {"Event": f"Puzzle {puzzle.id}"}}
    if puzzle.variant == "janggi":
        options["bikjang"] = "off"
    else:
        options["rules"] = "casual"
    if puzzle.variant == "jieqi":
        assert puzzle.view is not None  # the catalog keeps no jieqi puzzle without one
        options["rules"] = str(puzzle.view.get("rules", "casual"))
        options["view"] = puzzle.view
        options["reveals"] = list(puzzle.reveals or [None] * len(puzzle.moves))
    return GameRecord(
        id=new_id("g"),
        kind="imported",
        variant=puzzle.variant,
        player_id=player.id,
        options=options,
        start_fen=solving.start_board(puzzle).fen(),
        moves=list(puzzle.moves),
        status="finished",
        result={"winner": None, "reason": "unfinished", "points": None},
        created_at=now,
        expires_at=now,
        updated_at=now,
    )


class PuzzleService:
    """Puzzles on the app's database; a puzzle's review is a new game (an import's budget)."""

    def __init__(self, db: Database, spending: Spending, settings: PuzzleSettings) -> None:
        self.db = db
        self.spending = spending
        self.settings = settings
        self.store = PuzzleStore(db.store)
        self.limiter = Limiter(db.store.engine)
        self._daily: dict[tuple[str, date], Puzzle | None] = {}
        self._random = random.Random()
        self._loading: asyncio.Future[int] | None = None
        self._loaded = False

    async def ensure_loaded(self) -> None:
        """Load the data files once (the first caller loads, the others wait for it)."""
        if self._loaded:  # every request but the first few: no future, no shield
            return
        if self._loading is None:
            self._loading = asyncio.ensure_future(self.load())
        try:
            await asyncio.shield(self._loading)
        except Exception:
            self._loading = None  # the next request tries again
            raise
        self._loaded = True

    async def load(self) -> int:
        """Load the data files' puzzles not in the table yet; returns how many. A puzzle
        whose position does not hold together is left out (logged)."""
        usable = await asyncio.to_thread(usable_puzzles, self.settings.data_dir)
        added = sum((await self.db(load_puzzles, self.store, usable)).values())
        log.info("puzzles loaded", extra={"found": len(usable), "added": added})
        return added

    # ------------------------------------------------------------------ budgets (Z5, Z8)

    def _uses(self, player: Player, begin: bool) -> list[tuple[str, Budget]]:
        """The budgets a puzzle begun (``begin``) or an action spends: per player, and per
        address block (slowed, not refused)."""
        settings = self.settings
        window = settings.window_seconds
        uses: list[tuple[str, Budget]] = []
        if begin and settings.puzzles_per_player:
            uses.append(
                (f"puzzles:player:{player.id}", Budget(settings.puzzles_per_player, window))
            )
        if settings.actions_per_player:
            budget = Budget(settings.actions_per_player, window)
            uses.append((f"puzzle_actions:player:{player.id}", budget))
        block = CLIENT_BLOCK.get()
        if block and settings.actions_per_address:
            budget = Budget(settings.actions_per_address, window, slows=True)
            uses.append((f"puzzle_actions:address:{block}", budget))
        return uses

    async def _spend(self, player: Player, begin: bool) -> None:
        uses = self._uses(player, begin)
        if not uses:
            return
        try:
            taken = await self.db(self.limiter.reserve, uses)
        except LimitExceeded as exc:
            raise too_many(exc) from None
        if taken.wait > 0:
            await asyncio.sleep(taken.wait)

    def _charge(self, uses: list[tuple[str, Budget]]) -> Callable[[Connection], None]:
        """The budgets taken inside a begin's transaction (:meth:`PuzzleStore.begin`); a
        use whose turn is later (a busy address block) rolls the begin back with
        :class:`_Slowed`, to wait first and begin after, as :meth:`_spend` does."""

        def charge(conn: Connection) -> None:
            if self.limiter.reserve_in(conn, uses).wait > 0:
                raise _Slowed

        return charge

    # ------------------------------------------------------------------ reading

    async def _owned(self, player: Player, attempt_id: str) -> tuple[Attempt, Puzzle]:
        found = await self.db(self._read, attempt_id)
        return self._mine(player, *found)

    async def _spent_and_owned(self, player: Player, attempt_id: str) -> tuple[Attempt, Puzzle]:
        """:meth:`_spend` (an action's budgets) then :meth:`_owned`, in one database call;
        a slowed use waits and reads again after."""
        uses = self._uses(player, begin=False)
        try:
            taken, attempt, puzzle = await self.db(self._reserve_and_read, uses, attempt_id)
        except LimitExceeded as exc:
            raise too_many(exc) from None
        if taken is not None and taken.wait > 0:
            await asyncio.sleep(taken.wait)
            return await self._owned(player, attempt_id)
        return self._mine(player, attempt, puzzle)

    def _read(self, attempt_id: str) -> tuple[Attempt | None, Puzzle | None]:
        if len(attempt_id) > 32:
            return None, None
        return self.store.attempt_and_puzzle(attempt_id)

    def _reserve_and_read(
        self, uses: list[tuple[str, Budget]], attempt_id: str
    ) -> tuple[Reservation | None, Attempt | None, Puzzle | None]:
        taken = self.limiter.reserve(uses) if uses else None
        attempt, puzzle = self._read(attempt_id)
        return taken, attempt, puzzle

    @staticmethod
    def _mine(
        player: Player, attempt: Attempt | None, puzzle: Puzzle | None
    ) -> tuple[Attempt, Puzzle]:
        if attempt is None or attempt.player_id != player.id:
            raise GameActionError("not_found", "no such puzzle attempt")
        if puzzle is None:
            raise GameActionError("not_found", "the puzzle is gone")
        return attempt, puzzle

    def _step(
        self, attempt: Attempt, played: list[str], hinted: bool, now: datetime
    ) -> tuple[Attempt, PuzzleRating]:
        """:meth:`PuzzleStore.step`, and the player's rating to answer with (one call)."""
        stepped = self.store.step(attempt, played, hinted, now)
        return stepped, self.store.rating(attempt.player_id, attempt.variant)

    async def answer(
        self, attempt: Attempt, puzzle: Puzzle, rating: PuzzleRating | None = None
    ) -> dict[str, Any]:
        if rating is None:
            rating = await self.db(self.store.rating, attempt.player_id, attempt.variant)
        return attempt_json(attempt, puzzle, rating)

    async def show(self, player: Player, attempt_id: str) -> dict[str, Any]:
        attempt, puzzle = await self._owned(player, attempt_id)
        return await self.answer(attempt, puzzle)

    async def daily(self, variant: str, day: date | None = None) -> Puzzle | None:
        """The puzzle of the day in ``variant`` (UTC day): the same for everyone."""
        day = day or utcnow().date()
        key = (variant, day)
        if key not in self._daily:
            self._daily = {k: v for k, v in self._daily.items() if k[1] == day}
            self._daily[key] = await self.db(
                self.store.first_from, variant, daily_key(variant, day)
            )
        return self._daily[key]

    async def dailies(self) -> dict[str, Any]:
        """Each variant's puzzle of the day, as the home page shows it (no line, no theme)."""
        day = utcnow().date()
        shown: dict[str, Any] = {}
        for variant in VARIANTS:
            puzzle = await self.daily(variant, day)
            if puzzle is None:
                shown[variant] = None
                continue
            board = solving.start_board(puzzle)
            shown[variant] = {
                "id": puzzle.id,
                "fen": board.fen(),
                "turn": board.SIDE_NAMES[board.turn],
                "rating": round(puzzle.rating.rating),
                "credit": credit_of(puzzle),
            }
        return {"date": day.isoformat(), "puzzles": shown}

    async def ratings(self, player: Player) -> dict[str, Any]:
        found = await self.db(self.store.ratings, player.id)
        return {v: rating_json(found[v]) if v in found else None for v in VARIANTS}

    # ------------------------------------------------------------------ playing

    async def begin(
        self, player: Player, variant: str, puzzle_id: str | None = None, daily: bool = False
    ) -> dict[str, Any]:
        """A new attempt: at the puzzle asked for (by id, or the day's), else the next one
        near the player's rating. Raises GameActionError ``not_found`` when there is none.

        One database call, one transaction: the rating, the choice, the attempt and the
        budgets commit together (a refused budget stores nothing, as when it was spent
        first); only a slowed one waits first and begins after, in two."""
        pick: Puzzle | str | None = puzzle_id
        if daily:
            pick = await self.daily(variant)
            if pick is None:
                await self._spend(player, begin=True)
                raise GameActionError("not_found", f"no {variant} puzzle to give")
        offset = self._random.uniform(-SPREAD, SPREAD)
        now = utcnow()
        fresh = Attempt(
            id=new_id("z"),
            player_id=player.id,
            puzzle_id="",
            variant=variant,
            status="playing",
            played=[],
            hinted=False,
            shown=False,
            rated=True,
            daily=daily,
            rating_before=None,
            rating_after=None,
            created_at=now,
            updated_at=now,
        )
        uses = self._uses(player, begin=True)
        try:
            begun = await self.db(
                self.store.begin, fresh, pick, offset, self._charge(uses) if uses else None
            )
        except LimitExceeded as exc:
            raise too_many(exc) from None
        except _Slowed:
            await self._spend(player, begin=True)
            begun = await self.db(self.store.begin, fresh, pick, offset)
        if begun.puzzle is None or begun.attempt is None:
            raise GameActionError("not_found", f"no {variant} puzzle to give")
        return await self.answer(begun.attempt, begun.puzzle, begun.rating)  # as read

    async def move(self, player: Player, attempt_id: str, ply: int, move: str) -> dict[str, Any]:
        """The solver's ``move`` at ``ply`` (the moves played so far). Right: the stored
        reply is played (the answer's ``reply``), or the puzzle is solved. Wrong: failed,
        and the answer shows the line. An illegal move is refused (``bad_request``) and
        changes nothing."""
        attempt, puzzle = await self._spent_and_owned(player, attempt_id)
        self._ongoing(attempt, ply)
        try:
            verdict = await asyncio.to_thread(solving.judge, puzzle, attempt.played, move)
        except (RulesError, ValueError) as exc:
            raise GameActionError("bad_request", str(exc)) from None
        played = [*attempt.played, move]
        now = utcnow()
        rating: PuzzleRating | None = None
        try:
            if not verdict.right:
                attempt, rating = await self._finish(attempt, attempt.played, FAILED, now)
            elif verdict.done:
                ending = ASSISTED if attempt.hinted else SOLVED
                attempt, rating = await self._finish(attempt, played, ending, now)
            else:
                assert verdict.reply is not None
                played.append(verdict.reply)
                attempt, rating = await self.db(self._step, attempt, played, attempt.hinted, now)
        except Moved:
            raise GameActionError("stale", "the puzzle moved on meanwhile; read it again") from None
        if attempt.over and attempt.rated:  # the puzzle's rating moved with the player's
            puzzle = await self._reread(puzzle)
        answer = await self.answer(attempt, puzzle, rating)
        answer["verdict"] = "wrong" if not verdict.right else "solved" if verdict.done else "right"
        answer["reply"] = verdict.reply if verdict.right and not verdict.done else None
        answer["tried"] = move
        return answer

    async def hint(self, player: Player, attempt_id: str) -> dict[str, Any]:
        """The point of the piece to move now; the attempt counts as assisted from now on."""
        attempt, puzzle = await self._spent_and_owned(player, attempt_id)
        self._ongoing(attempt, len(attempt.played))
        if not attempt.hinted:
            try:
                attempt = await self.db(self.store.step, attempt, attempt.played, True, utcnow())
            except Moved:
                raise GameActionError("stale", "the puzzle moved on meanwhile") from None
        answer = await self.answer(attempt, puzzle)
        answer["hint"] = solving.hint_point(puzzle, attempt.played)
        return answer

    async def solution(self, player: Player, attempt_id: str) -> dict[str, Any]:
        """The line, once the attempt is over: asking for it ends it as a loss (Z8)."""
        attempt, puzzle = await self._spent_and_owned(player, attempt_id)
        if not attempt.over:
            try:
                attempt, rating = await self._finish(attempt, attempt.played, SHOWN, utcnow())
            except Moved:
                raise GameActionError("stale", "the puzzle moved on meanwhile") from None
            if attempt.rated:
                puzzle = await self._reread(puzzle)
            return await self.answer(attempt, puzzle, rating)
        return await self.answer(attempt, puzzle)

    async def analysis_game(self, player: Player, attempt_id: str) -> str:
        """After the attempt: the puzzle and its line as a game of the player's own to open
        in the review (:func:`analysis_record`). Returns the game's id."""
        attempt, puzzle = await self._owned(player, attempt_id)
        if not attempt.over:
            raise GameActionError("puzzle_ongoing", "finish the puzzle first")
        await self.spending.spend("imports", player.id)  # a new game row, as an import is
        game = analysis_record(puzzle, player, utcnow())
        await self.db(self.db.store.insert_game, game, [event("start")])
        return game.id

    async def history(
        self, player: Player, limit: int, variant: str | None, before: datetime | None
    ) -> list[dict[str, Any]]:
        found = await self.db(self.store.history, player.id, limit, variant, before)
        return [
            {
                "id": attempt.id,
                "puzzle": puzzle.id,
                "variant": attempt.variant,
                "status": attempt.status,
                "hinted": attempt.hinted,
                "shown": attempt.shown,
                "daily": attempt.daily,
                "rated": attempt.rated,
                "themes": puzzle.themes if attempt.over else None,
                "puzzle_rating": round(puzzle.rating.rating),
                "rating_before": round(attempt.rating_before) if attempt.rating_before else None,
                "rating_after": round(attempt.rating_after) if attempt.rating_after else None,
                "created_at": attempt.created_at.isoformat().replace("+00:00", "Z"),
            }
            for attempt, puzzle in found
        ]

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _ongoing(attempt: Attempt, ply: int) -> None:
        if attempt.over:
            raise GameActionError("puzzle_over", "this puzzle is over")
        if ply != len(attempt.played):
            raise GameActionError("stale", f"the puzzle is at move {len(attempt.played)}")

    async def _reread(self, puzzle: Puzzle) -> Puzzle:
        """The puzzle as stored now (its rating moved with an attempt's end)."""
        found: Puzzle | None = await self.db(self.store.puzzle, puzzle.id)
        return found or puzzle

    async def _finish(
        self, attempt: Attempt, played: list[str], ending: Ending, now: datetime
    ) -> tuple[Attempt, PuzzleRating]:
        return await self.db(
            self.store.finish, attempt, played, ending, now, rate, self.settings.gain_per_hour
        )
