"""What the server asks of the AI: a move at a level, a hint, an answer to a draw offer (A1–A5).

Every function takes a rules board (a jieqi *view* board, A3) and never changes it: the search
works on a copy. Results depend only on the position, the level and the seed, except where a
time budget cuts a search short; pass ``nodes`` to get a reproducible search (tests do).
"""

from __future__ import annotations

import functools
import random
import threading
import time
from dataclasses import dataclass, field

from ..rules import make_board
from ..rules.board import Board, Move
from ..rules.janggi import SETUPS
from .book import book_move
from .search import MATE_BOUND, Limits, Searcher
from .variants import profile_for


@dataclass(frozen=True, slots=True)
class Level:
    """How one AI level searches (A1).

    ``slip_chance`` is how often the level plays from a one-ply, capture-blind look (it then
    leaves pieces hanging like a novice); ``noise`` is the spread of the random bonus added to
    each root move, in centipawns.
    """

    depth: int
    nodes: int | None
    movetime: float
    slip_chance: float = 0.0
    noise: int = 0

    def limits(self, movetime: float | None = None, nodes: int | None = None) -> Limits:
        """This level's search limits; ``movetime`` replaces its time budget, ``nodes`` its
        node budget (and switches the clock off)."""
        budget = None if nodes is not None else (movetime or self.movetime)
        return Limits(
            depth=self.depth, nodes=nodes if nodes is not None else self.nodes, movetime=budget
        )

    def plan(
        self, board: Board, seed: int = 0, movetime: float | None = None, nodes: int | None = None
    ) -> tuple[Limits, dict[int, int] | None]:
        """The search limits and root-move noise of one decision on ``board`` (A1).

        The beginner now and then looks one ply deep without quiescence (it then misses what
        its moved piece is exposed to) and adds a seeded random bonus to every root move.
        """
        rng = random.Random(f"{seed}:{board.key}:{board.ply}")
        limits = self.limits(movetime, nodes)
        noise = None
        if self.noise:
            noise = {code: int(rng.gauss(0, self.noise)) for code in board.legal_codes()}
        if self.slip_chance and rng.random() < self.slip_chance:
            limits.depth, limits.quiescence = 1, False
        return limits, noise


LEVELS: dict[str, Level] = {
    "beginner": Level(depth=2, nodes=6_000, movetime=0.35, slip_chance=0.3, noise=40),
    "intermediate": Level(depth=3, nodes=40_000, movetime=0.45),
    "advanced": Level(depth=48, nodes=None, movetime=2.0),
}
# How often a level plays from the opening book when the position is in it (A1).
BOOK_SHARE = {"advanced": 1.0, "intermediate": 0.5}
HINT_LEVEL = Level(depth=6, nodes=None, movetime=0.3)
DRAW_SEARCH_NODES = 6_000
DRAW_SEARCH_DEPTHS = (2, 3)  # an even and an odd depth: fair to the side to move (A5)
DRAW_WORSE_THRESHOLD = -60  # A5: "stands worse"
DRAW_BALANCED_MARGIN = 40  # A5: "balanced"


@dataclass(slots=True)
class SearchResult:
    """The AI's decision: the move, its score (centipawns, mover's view), depth, nodes, line."""

    move: Move
    score: int
    depth: int
    nodes: int
    pv: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # Positions the search inherited from the same game's previous decision (``carry``).
    inherited: int = 0


def _level(name: str) -> Level:
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown level {name!r}; choose one of {', '.join(LEVELS)}") from None


# Advanced keeps what a search learned (its transposition table, mobility cache and history)
# for its next move in the same game, as engines do between moves: the positions two plies on
# were searched last time, so the new search starts with their bounds and best moves. Only a
# time-limited search carries them (a node-limited one stays a function of its inputs), and
# only in xiangqi and janggi (jieqi's values depend on the unknown pool, which reveals change).
# A game is recognised by its history: the kept search's root is one of the last KEPT_PLIES
# positions of the board, with the same side to move and the same rules. Each process keeps
# KEPT_GAMES games (the least recently used go), each table at most KEPT_ENTRIES positions.
KEPT_GAMES = 3
KEPT_PLIES = 8
KEPT_ENTRIES = 120_000
KEPT_DEPTH = 3  # past KEPT_ENTRIES, the entries searched at least this deep stay


@dataclass(slots=True)
class _Kept:
    context: tuple[object, ...]
    root: int
    tt: dict[int, tuple[int, int, int, int]]
    mobility: dict[int, int]
    history: list[int]


_kept: list[_Kept] = []  # most recently used last
_kept_lock = threading.Lock()


def _context(board: Board, side: int) -> tuple[object, ...]:
    return (
        type(board).__name__,
        side,
        getattr(board, "rules", None),
        getattr(board, "bikjang", None),
    )


def _take_kept(board: Board) -> _Kept | None:
    """The kept tables of the game ``board`` continues, taken out of the store."""
    context = _context(board, board.turn)
    recent = set(board.key_history()[-KEPT_PLIES:])
    with _kept_lock:
        for i, kept in enumerate(_kept):
            if kept.context == context and kept.root in recent:
                return _kept.pop(i)
    return None


def _keep(kept: _Kept) -> None:
    # The memory a game may hold is bounded: past the bound a table keeps only its deeper
    # entries (the costly ones), and starts afresh if those are still too many.
    if len(kept.tt) > KEPT_ENTRIES:
        kept.tt = {key: entry for key, entry in kept.tt.items() if entry[0] >= KEPT_DEPTH}
        if len(kept.tt) > KEPT_ENTRIES:
            kept.tt = {}
    if len(kept.mobility) > KEPT_ENTRIES:
        kept.mobility = {}
    with _kept_lock:
        _kept.append(kept)
        del _kept[:-KEPT_GAMES]


def forget_games() -> None:
    """Drop every kept table (tests, and a process that wants its memory back)."""
    with _kept_lock:
        _kept.clear()


def searcher_for(
    board: Board, limits: Limits, noise: dict[int, int] | None = None, *, carry: bool = False
) -> Searcher:
    """A searcher over a private copy of ``board``. With ``carry`` (honoured for time-limited
    xiangqi and janggi searches without noise) it starts from the tables an earlier search of
    the same game kept; :func:`keep_tables` keeps its own after the search."""
    profile = profile_for(board)
    searcher = profile.searcher(profile.search_board(board), limits, noise)
    timed = limits.movetime is not None and limits.nodes is None
    if carry and timed and noise is None and profile.carries_tables:
        searcher.carries = True
        # An iteration the time cuts short is not lost when the tables carry: what it stored
        # is where the next move's search starts. So a carrying search uses its whole time
        # (a forced reply still stops early), as engines do with a fixed time a move.
        searcher.soft_share = searcher.settled_factor = searcher.hard_share = 1.0
        kept = _take_kept(searcher.board)
        if kept is not None:
            searcher.tt, searcher.mobility_cache = kept.tt, kept.mobility
            searcher.history = [h // 2 for h in kept.history]  # older cutoffs count half
    return searcher


def keep_tables(searcher: Searcher) -> None:
    """Keep a finished ``carry`` search's tables for the same game's next decision."""
    if searcher.carries:
        context = _context(searcher.board, searcher.root_side)
        _keep(
            _Kept(
                context, searcher.root_key, searcher.tt, searcher.mobility_cache, searcher.history
            )
        )


def search(
    board: Board, limits: Limits, noise: dict[int, int] | None = None, *, carry: bool = False
) -> SearchResult:
    """Search a copy of ``board`` within ``limits``; raises ValueError when no move is legal.

    ``carry``: start from the tables an earlier ``carry`` search of the same game left, and
    leave this one's for the next (see :func:`searcher_for`).
    """
    started = time.monotonic()
    searcher = searcher_for(board, limits, noise, carry=carry)
    inherited = len(searcher.tt)
    code, score, reached, pv = searcher.run()
    keep_tables(searcher)
    return SearchResult(
        Move.from_code(code),
        score,
        reached,
        searcher.nodes,
        pv,
        time.monotonic() - started,
        inherited,
    )


def choose_move(
    board: Board,
    level: str,
    seed: int = 0,
    movetime: float | None = None,
    *,
    nodes: int | None = None,
) -> SearchResult:
    """The AI's move at ``level`` ("beginner", "intermediate", "advanced") for the side to move.

    ``movetime`` (seconds) replaces the level's time budget; ``nodes`` replaces its node budget
    and switches the clock off, which makes the result a function of (position, level, seed).
    Advanced plays from the opening book (xiangqi and janggi, the first plies) whenever the
    position is in it, intermediate half of the time; the seed picks among the book's moves.
    Raises ValueError for an unknown level or when the side to move has no legal move.
    """
    spec = _level(level)  # ValueError for an unknown level, before any book move
    share = BOOK_SHARE.get(level, 0.0)
    if share:
        rng = random.Random(f"book:{seed}:{board.key}:{board.ply}")
        move = book_move(board, rng) if rng.random() < share else None
        if move is not None:
            return SearchResult(move, 0, 0, 0, [str(move)])
    return search(board, *spec.plan(board, seed, movetime, nodes), carry=level == "advanced")


def hint(board: Board, seed: int = 0, *, nodes: int | None = None) -> Move:
    """The best move for the side to move within a short budget (A4).

    Raises ValueError when the side to move has no legal move.
    """
    return search(board, HINT_LEVEL.limits(nodes=nodes)).move


def accepts_draw(board: Board, engine_side: int) -> bool:
    """Whether the AI playing ``engine_side`` (0 or 1) accepts a draw offer now (A5).

    It accepts when it stands worse, or when the position is balanced and quiet (no check and
    no capture worth making for either side); it declines otherwise, and after the game's end.
    """
    if engine_side not in (0, 1):
        raise ValueError(f"engine_side must be 0 or 1, got {engine_side!r}")
    if board.outcome() is not None:
        return False
    profile = profile_for(board)
    work = profile.search_board(board)
    # An odd depth lets the side to move make one move more than the other, which the
    # evaluation reads as an edge (the tempo); an even depth the reverse. The mean of one of
    # each is fair to both (the tuned tables value a central cannon highly, so at the start a
    # 3-ply search alone says +74 for whoever moves).
    scores = []
    for depth in DRAW_SEARCH_DEPTHS:
        searcher = profile.searcher(work, Limits(depth=depth, nodes=DRAW_SEARCH_NODES))
        _, found, _, _ = searcher.run()
        if abs(found) >= MATE_BOUND:
            scores = [found]
            break
        scores.append(found)
    score = sum(scores) // len(scores)
    if work.turn != engine_side:
        score = -score
    if score <= DRAW_WORSE_THRESHOLD:
        return True
    if abs(score) > DRAW_BALANCED_MARGIN or abs(score) >= MATE_BOUND:
        return False
    return profile.is_quiet(work)


SETUP_SEARCH_NODES = 2_500


@functools.lru_cache(maxsize=64)
def choose_setup(side: int, opponent_setup: str | None = None) -> str:
    """The janggi setup (J3) the AI picks for ``side`` (0 Cho, 1 Han), by evaluation.

    With the opponent's choice known (Cho chooses after Han) it takes the setup that searches
    best against it; without it (Han, first) the setup whose worst case is best. Deterministic.
    Raises ValueError for a bad side or an unknown setup.
    """
    if side not in (0, 1):
        raise ValueError(f"side must be 0 or 1, got {side!r}")
    if opponent_setup is not None and opponent_setup not in SETUPS:
        raise ValueError(f"unknown setup {opponent_setup!r}; choose one of {', '.join(SETUPS)}")

    def value(own: str, other: str) -> int:
        cho, han = (own, other) if side == 0 else (other, own)
        board = make_board("janggi", setup=f"{cho}:{han}")
        score = search(board, Limits(depth=3, nodes=SETUP_SEARCH_NODES)).score
        return score if side == 0 else -score  # Cho is to move at the start

    if opponent_setup is not None:
        return max(SETUPS, key=lambda own: value(own, opponent_setup))
    return max(SETUPS, key=lambda own: min(value(own, other) for other in SETUPS))
