"""The WXF repetition rules: perpetual check and perpetual chase judged (SPEC E1).

SPEC E1 ends a game at the third occurrence of a position. With the rule set ``casual`` (the
default) only a one-sided perpetual check loses. With ``wxf`` the moves from the first to the
third occurrence are judged as the World Xiangqi Federation rules (the Asian rules they adopt)
judge them; the diagrams of the WXF manual are the tests (``tests/test_wxf.py``).

Each move of that span is a **check** (it attacks the general), a **chase** (it creates an
attack that may take a piece, below), or **idle**. A side that checked with every one of its
moves checked perpetually; a side whose moves chased *one and the same* piece every time (it
may move, the chasers may change) chased perpetually; any other side was idle. The verdict:

===============  ===============  =========================================
one side         the other        verdict
===============  ===============  =========================================
perpetual check  idle or chase    the checking side loses
perpetual check  perpetual check  draw
perpetual chase  idle             the chasing side loses
perpetual chase  perpetual chase  draw
idle             idle             draw
===============  ===============  =========================================

A move *chases* piece V when, in the position after it, the mover could take V (the move
"might capture it next"), that attack is one the position before the move did not already
give (a new attacker on V, or V newly unprotected), and the rules count it:

- attacks by a general or a soldier never count (they may chase anything: diagrams 69, 70);
  generals are not chased (that is check) and neither are soldiers that have not crossed the
  river (diagram 60; a crossed soldier may be: diagram 59);
- the capture must be legal: a pinned attacker does not attack;
- V must be unprotected — no piece of its side reaches its point as the board stands (a line
  that the taker's leaving would open does not count: diagrams 39–41) with a recapture that
  is legal once V is taken (a "false root" does not protect: diagram 29) — except where the
  rules let a weaker piece chase a stronger one: a horse or a cannon chasing a chariot counts,
  protected or not (rule 15, diagrams 18–25). No other pair is named by the rules, so an
  advisor or elephant attacking a protected piece does not chase;
- a piece attacking one of its own kind that can take it back is offering an exchange, not
  chasing (rule 24: chariot–chariot, cannon–cannon, horse–horse); a blocked horse or a
  screenless cannon cannot take back, so chasing it counts (diagrams 53, 55);
- a checking move chases nothing: "one check, one chase" is not a perpetual chase
  (diagrams 37, 38); mate threats are idle (diagrams 34, 35).

Jieqi (Q1–Q6): the same rules. A face-down piece counts as the piece of its point (the piece
it moves and captures as, Q3) for "protected" and "lower value": that is all either player can
see, and a rule that looked at the secret would rule on what the offender cannot know.
A cycle never contains a move of a face-down piece (moving one turns it face up for good).

Cost: a verdict replays the span once and asks, per move, which pieces the mover attacks.
Piece movement is the board's alone: who could take what comes from its capture generator,
run once per position and side asked about, and once more per piece whose protectors are
asked (:class:`Captures`, kept for a position the span meets again); once a side has no piece
chased on all its moves so far, its later moves are not examined (``explain=False``).

The judge reads a board through :class:`JudgedBoard`, the part of the board's public move-code
API it needs (``rules.board``), and does not import the board: the board asks it for verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol

from . import geometry as g


class JudgedBoard(Protocol):
    """What the judge reads of a board (:class:`chuhan.rules.board.Board` and its variants).

    It moves pieces on ``squares`` and ``kings`` and sets ``turn`` while it replays a span, and
    puts them back before it returns.
    """

    SIDE_NAMES: ClassVar[tuple[str, str]]
    squares: list[int]
    kings: list[int]
    turn: int
    fullmove: int
    rules: str

    @property
    def ply(self) -> int: ...

    def attacked(self, point: int, by: int) -> bool: ...

    def capture_codes(self) -> list[int]: ...

    def code_history(self) -> list[int]: ...

    def check_history(self) -> list[bool]: ...


RULE_SETS: Final = ("casual", "wxf")
KIND_NAMES: Final = ("", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
# Which chased piece a ruling names first (the most valuable).
VALUES: Final = (0, 0, 2, 2, 4, 9, 4, 1)
CHECK: Final = "check"
CHASE: Final = "chase"
IDLE: Final = "idle"


class RuleSetError(ValueError):
    """A rule set that is not one of :data:`RULE_SETS` (or not offered by the variant)."""


def check_rule_set(rules: object, offered: Sequence[str] = RULE_SETS) -> str:
    """``rules`` when it names a rule set in ``offered``; raises :class:`RuleSetError`."""
    if rules not in offered:
        choices = " or ".join(repr(r) for r in offered)
        raise RuleSetError(f"rules must be {choices}, got {rules!r}")
    return str(rules)


@dataclass(frozen=True, slots=True)
class Chase:
    """One attack that counted as a chase: the chaser's and the chased piece's points
    (after the move) and kinds."""

    piece: int
    square: int
    target: int
    target_square: int

    def as_json(self) -> dict[str, str]:
        return {
            "piece": KIND_NAMES[self.piece],
            "square": g.square_name(self.square),
            "target": KIND_NAMES[self.target],
            "target_square": g.square_name(self.target_square),
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of a span of moves that closed a repetition.

    ``loser`` is the side that must lose (None: a draw); ``rule`` one of
    ``perpetual_check``, ``perpetual_chase``, ``mutual_perpetual_check``,
    ``mutual_perpetual_chase``, ``repetition``; ``statuses`` each side's conduct
    (:data:`CHECK`, :data:`CHASE`, :data:`IDLE`); ``chase`` the evidence of the offending
    chase and ``chase_index`` the move (index in the span) where it began; ``marks`` per move
    of the span, ``(gave check, chases)``, filled when asked to explain.
    """

    loser: int | None
    rule: str
    statuses: tuple[str, str]
    chase: Chase | None = None
    chase_index: int = 0
    marks: tuple[tuple[bool, tuple[Chase, ...]], ...] = ()


# ---------------------------------------------------------------------------- attacks


def _captures(board: JudgedBoard, side: int) -> dict[int, list[int]]:
    """``side``'s pseudo-legal captures (X2, Q3, Q4; before the own general's safety, X3, X4)
    as the board generates them with ``side`` to move: target point -> the points of the
    pieces that could take there, in the generator's order (ascending points)."""
    turn = board.turn
    board.turn = side
    try:
        codes = board.capture_codes()
    finally:
        board.turn = turn
    out: dict[int, list[int]] = {}
    for code in codes:
        fr, to = divmod(code, g.NUM_POINTS)
        takers = out.get(to)
        if takers is None:
            out[to] = [fr]
        else:
            takers.append(fr)
    return out


class Captures:
    """Who could take what in one position (the judge asks about several pieces of each, and
    meets each position of a cycle again in the next): each side's captures generated once,
    the protectors of each piece once. Valid while the board stands in that position."""

    def __init__(self, board: JudgedBoard) -> None:
        self.board = board
        self._by_side: list[dict[int, list[int]] | None] = [None, None]
        self._protectors: dict[int, list[int]] = {}

    def of(self, side: int) -> dict[int, list[int]]:
        """Target point -> the points of ``side``'s pieces that could take there."""
        found = self._by_side[side]
        if found is None:
            found = _captures(self.board, side)
            self._by_side[side] = found
        return found

    def protectors(self, point: int) -> list[int]:
        """Points of the pieces that reach ``point`` from its piece's own side, by piece
        movement: those that could take there were it an enemy piece."""
        found = self._protectors.get(point)
        if found is None:
            b = self.board.squares
            piece = b[point]
            b[point] = -piece
            try:
                found = _captures(self.board, g.FIRST if piece > 0 else g.SECOND).get(point, [])
            finally:
                b[point] = piece
            self._protectors[point] = found
        return found


def _position(board: JudgedBoard, positions: dict[tuple[int, ...], Captures] | None) -> Captures:
    """The :class:`Captures` of the board's position, from ``positions`` when met before
    (None: no position is met twice)."""
    if positions is None:
        return Captures(board)
    key = tuple(board.squares)
    found = positions.get(key)
    if found is None:
        found = Captures(board)
        positions[key] = found
    return found


def _legal_capture(board: JudgedBoard, side: int, fr: int, to: int) -> bool:
    """True when ``side``'s piece on ``fr`` may take on ``to`` without exposing its general."""
    b = board.squares
    piece, captured = b[fr], b[to]
    b[to], b[fr] = piece, 0
    general = to if piece in (g.KING, -g.KING) else board.kings[side]
    safe = not board.attacked(general, 1 - side)
    b[fr], b[to] = piece, captured
    return safe


def chasers(
    board: JudgedBoard, side: int, point: int, captures: Captures | None = None
) -> list[int]:
    """Points of ``side``'s pieces whose attack on the enemy piece on ``point`` counts as a
    chase by the WXF rules (see the module doc), in the position as it stands (``captures``:
    this position's, when the caller asks about several points of it)."""
    if captures is None:
        captures = Captures(board)
    b = board.squares
    victim = b[point]
    kind = abs(victim)
    enemy = 1 - side
    if kind == g.KING or (kind == g.SOLDIER and g.own_half(point, enemy)):
        return []
    out = []
    for q in captures.of(side).get(point, []):
        attacker = b[q]
        attacker_kind = abs(attacker)
        if attacker_kind in (g.KING, g.SOLDIER) or not _legal_capture(board, side, q, point):
            continue
        if attacker_kind == kind and _can_take_back(board, captures, enemy, point, q):
            continue  # an exchange offered, not a chase (rule 24)
        if kind == g.CHARIOT and attacker_kind in (g.HORSE, g.CANNON):
            # Rule 15: a horse or cannon chasing a chariot chases even a protected one.
            out.append(q)
            continue
        # Protectors are the pieces that reach the point as the board stands: a line that only
        # the taker's leaving would open protects nothing (diagrams 39-41); whether the
        # recapture is legal is asked after the taking.
        protectors = captures.protectors(point)
        b[point], b[q] = attacker, 0
        defended = any(_legal_capture(board, enemy, d, point) for d in protectors)
        b[q], b[point] = attacker, victim
        if not defended:
            out.append(q)
    if len(out) > 1:
        out.sort(key=lambda q: _listing_order(point, q))
    return out


def _listing_order(point: int, chaser: int) -> tuple[int, int, int]:
    """The place of the chaser on ``chaser`` among several of the piece on ``point``: a move's
    marks list them in this order and a ruling names the last. It is the order the judge has
    always used, so that a game replayed reads the same ruling: along the file and rank first,
    in the geometry's order of directions (``g.ORTHOGONAL``), nearer first; then horses by
    their point; then advisors, then elephants, in the order of ``g.DIAGONAL``."""
    df, dr = chaser % 9 - point % 9, chaser // 9 - point // 9
    direction = ((df > 0) - (df < 0), (dr > 0) - (dr < 0))
    if not df or not dr:
        return 0, g.ORTHOGONAL.index(direction), abs(df + dr)
    if abs(df) != abs(dr):
        return 1, chaser, 0
    return abs(df) + 1, g.DIAGONAL.index(direction), 0


def _can_take_back(board: JudgedBoard, captures: Captures, side: int, fr: int, to: int) -> bool:
    """True when ``side``'s piece on ``fr`` attacks ``to`` and may legally take it."""
    return fr in captures.of(side).get(to, []) and _legal_capture(board, side, fr, to)


# ---------------------------------------------------------------------------- judging


def _shift(board: JudgedBoard, fr: int, to: int) -> None:
    """Move the piece on ``fr`` to the empty point ``to`` (moves of a cycle never capture)."""
    b = board.squares
    piece = b[fr]
    b[to], b[fr] = piece, 0
    if piece == g.KING:
        board.kings[0] = to
    elif piece == -g.KING:
        board.kings[1] = to


def _new_chases(
    board: JudgedBoard,
    side: int,
    fr: int,
    to: int,
    wanted: Sequence[int] | None,
    positions: dict[tuple[int, ...], Captures] | None,
) -> list[Chase]:
    """Play ``fr``-``to`` for ``side`` and return the chases it made on the enemy pieces on
    ``wanted`` (all that ``side`` could take when None). The board is left after the move;
    ``positions`` keeps what was learnt of each position met."""
    b = board.squares
    _shift(board, fr, to)
    captures = _position(board, positions)
    if wanted is None:
        wanted = sorted(captures.of(side))
    found: list[tuple[int, list[int]]] = []
    for point in wanted:
        after = chasers(board, side, point, captures)
        if after:
            found.append((point, after))
    if not found:
        return []
    _shift(board, to, fr)
    captures = _position(board, positions)
    out: list[Chase] = []
    for point, after in found:
        before = chasers(board, side, point, captures)
        out.extend(
            Chase(abs(b[fr if q == to else q]), q, abs(b[point]), point)
            for q in after
            if (fr if q == to else q) not in before
        )
    _shift(board, fr, to)
    return out


def judge(
    board: JudgedBoard, codes: Sequence[int], checks: Sequence[bool], explain: bool = False
) -> Verdict:
    """Judge the moves ``codes`` that led to ``board``'s position, which repeats the one before
    them (``checks[i]``: move ``i`` gave check). The board is left as it was.

    ``explain`` fills ``marks`` for every move; without it a side's moves are examined only
    while a chase on all its moves so far is still possible (the search's fast path).
    """
    b = board.squares
    saved, saved_kings = b[:], board.kings[:]
    try:
        for code in reversed(codes):
            _shift(board, code % g.NUM_POINTS, code // g.NUM_POINTS)
        first = g.FIRST if codes and b[codes[0] // g.NUM_POINTS] > 0 else 1 - g.FIRST
        moved, always_check = _checking_sides(first, checks)
        # A checking move chases nothing, so a side that checked once has no perpetual chase.
        open_ = [
            moved[s] and not any(checks[i] for i in range(s ^ first, len(checks), 2))
            for s in (0, 1)
        ]
        if not explain and ((always_check[0] and moved[0]) or (always_check[1] and moved[1])):
            open_ = [False, False]  # a perpetual check decides alone: no chase to look for
        candidates: list[dict[int, tuple[int, Chase]] | None] = [None, None]
        # A game's span (explained) holds its cycle twice; the search's one cycle meets no
        # position twice, and keying the positions would only cost.
        positions: dict[tuple[int, ...], Captures] | None = {} if explain else None
        ident = list(range(g.NUM_POINTS))  # point -> which piece (its point at the span's start)
        where = list(range(g.NUM_POINTS))  # piece -> its point now
        marks: list[tuple[bool, tuple[Chase, ...]]] = []
        for i, code in enumerate(codes):
            if not explain and not open_[0] and not open_[1]:
                break  # nothing left to find; the board is put back below
            side = first ^ (i & 1)
            fr, to = divmod(code, g.NUM_POINTS)
            chases: list[Chase] = []
            if not checks[i] and (explain or open_[side]):
                pool = candidates[side]
                wanted = None if explain or pool is None else [where[p] for p in pool]
                chases = _new_chases(board, side, fr, to, wanted, positions)
                if open_[side]:
                    seen = {ident[c.target_square]: c for c in chases}
                    if pool is None:
                        candidates[side] = {p: (i, c) for p, c in seen.items()}
                    else:
                        candidates[side] = {p: pool[p] for p in pool if p in seen}
                    open_[side] = bool(candidates[side])
            else:
                _shift(board, fr, to)
            piece = ident[fr]
            ident[to], ident[fr] = piece, -1
            where[piece] = to
            if explain:
                marks.append((checks[i], tuple(chases)))
    finally:
        b[:] = saved
        board.kings[:] = saved_kings
    statuses = tuple(
        CHECK if moved[s] and always_check[s] else CHASE if open_[s] and candidates[s] else IDLE
        for s in (0, 1)
    )
    return _verdict((statuses[0], statuses[1]), candidates, tuple(marks))


def _verdict(
    statuses: tuple[str, str],
    candidates: list[dict[int, tuple[int, Chase]] | None],
    marks: tuple[tuple[bool, tuple[Chase, ...]], ...],
) -> Verdict:
    if statuses == (CHECK, CHECK):
        return Verdict(None, "mutual_perpetual_check", statuses, marks=marks)
    if CHECK in statuses:
        return Verdict(statuses.index(CHECK), "perpetual_check", statuses, marks=marks)
    if statuses == (CHASE, CHASE):
        return Verdict(None, "mutual_perpetual_chase", statuses, marks=marks)
    if CHASE in statuses:
        loser = statuses.index(CHASE)
        pool = candidates[loser] or {}
        # The most valuable piece chased, then the earliest: what a referee would name.
        index, chase = min(pool.values(), key=lambda e: (-VALUES[e[1].target], e[0]))
        return Verdict(loser, "perpetual_chase", statuses, chase, index, marks)
    return Verdict(None, "repetition", statuses, marks=marks)


def cycle_loser(board: JudgedBoard, codes: Sequence[int], checks: Sequence[bool]) -> int | None:
    """The side that loses the repetition closed by ``codes`` (None: a draw): the search's
    question, answered on the fast path."""
    return judge(board, codes, checks).loser


# ---------------------------------------------------------------------------- the game's verdict


def game_verdict(board: JudgedBoard, first: int) -> tuple[int | None, str, dict[str, Any]]:
    """``(winner, reason, ruling)`` for the repetition on ``board`` whose span starts after
    move ``first`` (the first occurrence of the position): the reason is ``perpetual_check``,
    ``perpetual_chase`` or ``repetition``, the ruling the JSON-ready evidence
    (:func:`ruling_json`).
    """
    codes = board.code_history()[first:]
    checks = board.check_history()[first:]
    if board.rules == "wxf":
        verdict = judge(board, codes, checks, explain=True)
    else:
        verdict = _casual(board, checks)
    winner = None if verdict.loser is None else 1 - verdict.loser
    reason = verdict.rule if verdict.loser is not None else "repetition"
    return winner, reason, ruling_json(board, first, verdict)


def _checking_sides(first: int, checks: Sequence[bool]) -> tuple[list[bool], list[bool]]:
    """For each side, whether it moved in the span whose moves gave ``checks`` (side
    ``first`` moved first), and whether every one of its moves gave check."""
    moved = [False, False]
    always = [True, True]
    for i, gave_check in enumerate(checks):
        side = first ^ (i & 1)
        moved[side] = True
        always[side] = always[side] and gave_check
    return moved, always


def _casual(board: JudgedBoard, checks: Sequence[bool]) -> Verdict:
    """E1's informal rule: a one-sided perpetual check loses, anything else draws."""
    moved, always = _checking_sides((board.turn - len(checks)) % 2, checks)
    statuses = tuple(CHECK if moved[s] and always[s] else IDLE for s in (0, 1))
    marks = tuple((c, ()) for c in checks)
    return _verdict((statuses[0], statuses[1]), [None, None], marks)


def ruling_json(board: JudgedBoard, first: int, verdict: Verdict) -> dict[str, Any]:
    """The evidence of a verdict as JSON: ``rule_set``, ``rule``, ``side`` (the loser, or
    None), ``sides`` (each side's conduct), ``from_move`` / ``from_ply`` (the move number and
    the half-move, from 1, that began the span), for a chase ``piece``, ``square``,
    ``target``, ``target_square`` (kinds and points when the chase began) and ``chase_move``,
    and ``marks``: per half-move of the span ``{"ply", "move", "side", "check", "chases"}``.
    """
    names = board.SIDE_NAMES
    start_turn = (board.turn - board.ply) % 2
    start_full = board.fullmove - (start_turn + board.ply) // 2

    def move_number(index: int) -> int:
        return start_full + (start_turn + index) // 2

    ruling: dict[str, Any] = {
        "rule_set": board.rules,
        "rule": verdict.rule,
        "side": None if verdict.loser is None else names[verdict.loser],
        "sides": {names[0]: verdict.statuses[0], names[1]: verdict.statuses[1]},
        "from_move": move_number(first),
        "from_ply": first + 1,
    }
    if verdict.chase is not None:
        ruling.update(verdict.chase.as_json())
        ruling["chase_move"] = move_number(first + verdict.chase_index)
    marks = []
    played = board.code_history()
    for index, (gave_check, chases) in enumerate(verdict.marks):
        ply = first + index
        code = played[ply]
        mover = (start_turn + ply) % 2
        marks.append(
            {
                "ply": ply + 1,
                "move": g.square_name(code // g.NUM_POINTS) + g.square_name(code % g.NUM_POINTS),
                "side": names[mover],
                "check": gave_check,
                "chases": [c.as_json() for c in chases],
            }
        )
    ruling["marks"] = marks
    return ruling


def describe(ruling: dict[str, Any]) -> str:
    """The ruling in one English sentence (logs, the CLI); the front end has its own words."""
    rule = ruling["rule"]
    if rule == "perpetual_chase":
        return (
            f"perpetual chase: the {ruling['piece']} on {ruling['square']} chased the "
            f"{ruling['target']} on {ruling['target_square']} on every move from move "
            f"{ruling['chase_move']}"
        )
    if rule == "perpetual_check":
        return f"perpetual check: {ruling['side']} checked on every move from move " + str(
            ruling["from_move"]
        )
    if rule == "mutual_perpetual_check":
        return f"both sides checked on every move from move {ruling['from_move']}: a draw"
    if rule == "mutual_perpetual_chase":
        return f"both sides chased on every move from move {ruling['from_move']}: a draw"
    return f"the position occurred three times from move {ruling['from_move']}: a draw"
