"""Texel tuning of the xiangqi evaluation on quiet positions from master games (A1), and
of the janggi evaluation on positions from Fairy-Stockfish self-play (A1).

    .venv/bin/python bench/tune.py --freeze-shared          # fit, print held-out loss before/after
    .venv/bin/python bench/tune.py --freeze-shared --write  # ... and rewrite the weights
    .venv/bin/python bench/tune.py --freeze-shared --candidates  # what new terms would give
    .venv/bin/python bench/tune.py --variant janggi [--write]    # janggi's tables and values

The data is ``bench/data/xiangqi_positions.txt.gz`` (``bench/game_positions.py`` makes it from
the CCPD master games: quiet positions, each with its game's result). The evaluation is linear
in its weights at a quiet position, so the fit is a logistic regression: the first mover's
score ``s`` (centipawns, as the search sees it at a leaf: piece-square tables, the general's
safety from the piece counts, and the mobility balance) predicts the result through
``sigmoid(K * s)``, and the weights minimise the mean squared error against the results
(Texel's method), with an L2 pull toward the current weights so that squares a piece seldom
stands on keep their value. ``K`` is fitted first to the current evaluation and then held
fixed, so the loss before and after compares evaluations on the same scale.

What is tuned: for each piece kind the value of every point it can stand on, the same on a
file and its mirror (files a-e and i-f), from the owner's side; the cannon's mobility weight;
and, without ``--freeze-shared``, the chariot's and horse's mobility weights and the
general-safety weight, which janggi and jieqi share (tuning them gave almost nothing more on
the held-out set, so the evaluation keeps them as they were). Games, not positions, are split
into the fitting set and the held-out set (``--holdout``, by game number), so positions of one
game never sit on both sides. The figure that matters is the held-out loss after / before:
the anchor is the evaluation as it stands, measured in the same run; lower is better.

``--candidates`` also fits terms the evaluation does not have (:data:`CANDIDATES`: defenders
missing against each kind of attacker, horse and cannon by the pieces left, a cannon facing
the general, a chariot on an open palace file) and prints their weights and the held-out loss:
the measurement to make before anyone adds a term to the search. It never writes.

``--variant janggi`` fits janggi's own weights on ``bench/data/janggi_positions.txt.gz``
(``bench/janggi_games.py`` makes it, reproducibly, from Fairy-Stockfish self-play: no public
collection of janggi games was at hand). Janggi has no river, so every kind but the general and
the advisors (the palace) has a weight on every point, the soldier from its own rank 3 on; the
value of each kind is a weight of its own, not pulled toward J8's points (the per-point weights
are), since the value J8 counts is not what a piece is worth in play; and Han's bonus (the
first mover's score starts that far behind) is fitted too. The mobility and safety weights are
xiangqi's and stay as they are. It writes janggi's entry of ``engine/tuned.json`` (the values and
per-point bonuses, ``JANGGI_VALUES`` and ``JANGGI_BONUS``) and the janggi block of evaluation.py
(``JANGGI_SECOND_MOVER_BONUS``). ``--write`` rewrites both the variant's entry of tuned.json
(values and tables: data, read once at import) and its block of evaluation.py (the weights the
search reads per node, constants the compiled build reads natively).

It needs numpy, which the game does not: ``.venv/bin/pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chuhan.engine import evaluation
from chuhan.engine.evaluation import (
    JANGGI_EVALUATOR,
    XIANGQI_EVALUATOR,
    Evaluator,
    cannot_win,
    general_safety,
    mobility,
)
from chuhan.rules import make_board
from chuhan.rules.geometry import (
    ADVISOR,
    CANNON,
    CHARIOT,
    ELEPHANT,
    HORSE,
    HORSE_ATTACKERS,
    HORSE_MOVES,
    KING,
    NUM_POINTS,
    RAYS,
    SOLDIER,
)
from chuhan.rules.janggi import SLIDER_RAYS as JANGGI_RAYS

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "xiangqi_positions.txt.gz"
JANGGI_DATA = ROOT / "bench" / "data" / "janggi_positions.txt.gz"
EVALUATION = ROOT / "src" / "chuhan" / "engine" / "evaluation.py"
TUNED = ROOT / "src" / "chuhan" / "engine" / "tuned.json"
KINDS = (KING, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER)
KIND_NAMES = {
    KING: "KING",
    ADVISOR: "ADVISOR",
    ELEPHANT: "ELEPHANT",
    HORSE: "HORSE",
    CHARIOT: "CHARIOT",
    CANNON: "CANNON",
    SOLDIER: "SOLDIER",
}
# The points (file 0-4 after folding, rank from the owner's side) each kind can stand on.
_PALACE = [(f, r) for r in range(3) for f in (3, 4)]
_ADVISOR = [(3, 0), (4, 1), (3, 2)]
_ELEPHANT = [(2, 0), (0, 2), (4, 2), (2, 4)]
_SOLDIER = [(f, r) for r in (3, 4) for f in (0, 2, 4)] + [
    (f, r) for r in range(5, 10) for f in range(5)
]
_ANYWHERE = [(f, r) for r in range(10) for f in range(5)]
POINTS = {
    KING: _PALACE,
    ADVISOR: _ADVISOR,
    ELEPHANT: _ELEPHANT,
    HORSE: _ANYWHERE,
    CHARIOT: _ANYWHERE,
    CANNON: _ANYWHERE,
    SOLDIER: _SOLDIER,
}
EXTRA = ("chariot mobility", "horse mobility", "cannon mobility", "general safety")
# Their names in evaluation.py. All but the cannon's are shared with janggi and jieqi.
CONSTANTS = {
    "chariot mobility": "CHARIOT_MOBILITY",
    "horse mobility": "HORSE_MOBILITY",
    "cannon mobility": "XIANGQI_CANNON_MOBILITY",
    "general safety": "SAFETY_WEIGHT",
}
SHARED = ("chariot mobility", "horse mobility", "general safety")
# Terms the evaluation does not have yet, fitted with ``--candidates`` to see what each would
# give (the held-out loss), before anyone writes the code for the search to use them.
CANDIDATES = (
    "no advisor x enemy chariots",
    "no advisor x enemy horses",
    "no advisor x enemy cannons",
    "no elephant x enemy chariots",
    "no elephant x enemy horses",
    "no elephant x enemy cannons",
    "horse x pieces left",
    "cannon x pieces left",
    "cannon facing the general, no screen",
    "cannon facing the general, one screen",
    "chariot on an open palace file",
)
# Attack units on the enemy palace ("king safety from attack units near the palace"),
# for both variants: each point of the enemy palace a chariot, horse or cannon attacks is a unit
# (``palace_units``); fitted as the balance of units, of units squared (/ 10) and of units
# where the defender has lost an advisor; the same three for check threats (``check_threats``:
# the moves that would give check next).
PALACE_CANDIDATES = (
    "palace attack units",
    "palace attack units squared / 10",
    "palace attack units x missing advisors",
    "check threats",
    "check threats squared / 10",
    "check threats x missing advisors",
)
# Janggi (A1): no river, so every kind but the general and the advisors (the palace's
# nine points, folded to six) may stand anywhere; a soldier never steps back from its rank 3.
_JANGGI_PALACE = [(f, r) for r in range(3) for f in (3, 4)]
_JANGGI_SOLDIER = [(f, r) for r in range(3, 10) for f in range(5)]
JANGGI_POINTS = {
    KING: _JANGGI_PALACE,
    ADVISOR: _JANGGI_PALACE,
    ELEPHANT: _ANYWHERE,
    HORSE: _ANYWHERE,
    CHARIOT: _ANYWHERE,
    CANNON: _ANYWHERE,
    SOLDIER: _JANGGI_SOLDIER,
}
# Han's bonus (J8) as a weight: its feature is -1 in every position, first mover's view.
# The mobility and safety weights are xiangqi's, shared (janggi's cannon has none): held.
JANGGI_EXTRA = ("chariot mobility", "horse mobility", "general safety", "second mover")
MATERIAL = tuple(kind for kind in KINDS if kind != KING)


@dataclass(frozen=True)
class Spec:
    """What the tuner fits for one variant, and where the weights live in evaluation.py."""

    name: str
    data: Path
    evaluator: Evaluator
    points: dict[int, list[tuple[int, int]]]
    extra: tuple[str, ...]
    constants: dict[str, str]  # the extra weights written, by their name in evaluation.py
    shared: tuple[str, ...]  # shared with other variants: held by --freeze-shared
    rays: Sequence[Sequence[Sequence[int]]]
    begin: str
    end: str
    # One material weight per kind, not pulled toward its start (the per-point weights are):
    # few games, so the value of a kind moves as a whole and its points only as they are seen.
    material: bool
    pull: float  # the default --pull: the held-out loss's best of a sweep by factors of 10


BEGIN = "# --- tuned by bench/tune.py: do not edit by hand, rerun it (see its docstring) ---"
END = "# --- end of the tuned weights ---"
JANGGI_BEGIN = "# --- tuned by bench/tune.py --variant janggi: do not edit by hand, rerun it ---"
JANGGI_END = "# --- end of the tuned janggi weights ---"
SPECS = {
    "xiangqi": Spec(
        "xiangqi",
        DATA,
        XIANGQI_EVALUATOR,
        POINTS,
        EXTRA,
        CONSTANTS,
        SHARED,
        RAYS,
        BEGIN,
        END,
        material=False,
        pull=2e-6,
    ),
    "janggi": Spec(
        "janggi",
        JANGGI_DATA,
        JANGGI_EVALUATOR,
        JANGGI_POINTS,
        JANGGI_EXTRA,
        {"second mover": "JANGGI_SECOND_MOVER_BONUS"},
        JANGGI_EXTRA[:3],
        JANGGI_RAYS,
        JANGGI_BEGIN,
        JANGGI_END,
        material=True,
        pull=2e-4,
    ),
}


def fold(file: int) -> int:
    return min(file, 8 - file)


class Features:
    """The index of every weight: one per (kind, folded file, rank), then the spec's extra
    weights (:data:`EXTRA` for xiangqi), then with ``spec.material`` one per kind."""

    def __init__(self, candidates: bool = False, spec: Spec = SPECS["xiangqi"]) -> None:
        self.spec = spec
        self.index: dict[tuple[int, int, int], int] = {}
        for kind in KINDS:
            for file, rank in spec.points[kind]:
                self.index[(kind, file, rank)] = len(self.index)
        names = spec.extra + (
            (CANDIDATES if spec.name == "xiangqi" else ()) + PALACE_CANDIDATES if candidates else ()
        )
        self.extra = {name: len(self.index) + i for i, name in enumerate(names)}
        self.material = {
            kind: len(self.index) + len(names) + i
            for i, kind in enumerate(MATERIAL if spec.material else ())
        }
        self.candidates = candidates
        self.size = len(self.index) + len(names) + len(self.material)

    def of(self, squares: list[int]) -> dict[int, float]:
        """The feature counts of a placement, first mover's view (a second-mover piece counts
        -1 on its mirrored point)."""
        x: dict[int, float] = {}
        for point, piece in enumerate(squares):
            if not piece:
                continue
            file, rank = point % 9, point // 9
            sign = 1 if piece > 0 else -1
            if sign < 0:
                rank = 9 - rank
            j = self.index[(abs(piece), fold(file), rank)]
            x[j] = x.get(j, 0.0) + sign
            if abs(piece) in self.material:
                m = self.material[abs(piece)]
                x[m] = x.get(m, 0.0) + sign
        chariot, horse, cannon = reach(squares, self.spec.rays)
        counts = [0] * 15
        for piece in squares:
            counts[piece + 7] += 1
        safety = general_safety(counts) / evaluation.SAFETY_WEIGHT
        terms = {
            "chariot mobility": chariot,
            "horse mobility": horse,
            "cannon mobility": cannon,
            "general safety": safety,
            "second mover": -1,
        }
        for name in self.spec.extra:
            if terms[name]:
                x[self.extra[name]] = float(terms[name])
        if self.candidates:
            found = palace_terms(squares, counts, self.spec)
            names: tuple[str, ...] = PALACE_CANDIDATES
            if self.spec.name == "xiangqi":
                found = candidate_terms(squares, counts) + found
                names = CANDIDATES + names
            for name, value in zip(names, found, strict=True):
                if value:
                    x[self.extra[name]] = float(value)
        return x

    def current(self) -> np.ndarray:
        """The weights of the evaluation as it stands (the starting point and the anchor)."""
        theta = np.zeros(self.size)
        evaluator = self.spec.evaluator
        table = evaluator.tables
        for (kind, file, rank), j in self.index.items():
            theta[j] = table[kind + 7][rank * 9 + file]
            if kind in self.material:  # the point's weight is its bonus over the value
                theta[j] -= evaluator.values[kind]
        for kind, j in self.material.items():
            theta[j] = evaluator.values[kind]
        start = {
            "chariot mobility": evaluation.CHARIOT_MOBILITY,
            "horse mobility": evaluation.HORSE_MOBILITY,
            "cannon mobility": evaluator.cannon_mobility,
            "general safety": evaluation.SAFETY_WEIGHT,
            "second mover": -evaluator.bias,
        }
        for name in self.spec.extra:
            theta[self.extra[name]] = start[name]
        return theta

    def totals(self, theta: np.ndarray) -> dict[int, float]:
        """The weight of each (kind, point) index with its kind's material weight added."""
        return {
            j: theta[j] + (theta[self.material[kind]] if kind in self.material else 0.0)
            for (kind, _, _), j in self.index.items()
        }


def reach(
    squares: list[int], rays: Sequence[Sequence[Sequence[int]]] = RAYS
) -> tuple[int, int, int]:
    """Chariot, horse and cannon move counts, first mover minus second (see ``mobility``)."""
    totals = [0, 0, 0]
    for point, piece in enumerate(squares):
        kind = abs(piece)
        if kind not in (CHARIOT, HORSE, CANNON):
            continue
        sign = 1 if piece > 0 else -1
        n = 0
        if kind == HORSE:
            n = sum(
                1 for to, leg in HORSE_MOVES[point] if not squares[leg] and squares[to] * sign <= 0
            )
            totals[1] += sign * n
            continue
        for ray in rays[point]:
            for to in ray:
                if squares[to]:
                    if kind == CHARIOT and squares[to] * sign < 0:
                        n += 1
                    break
                n += 1
        totals[0 if kind == CHARIOT else 2] += sign * n
    return totals[0], totals[1], totals[2]


def candidate_terms(squares: list[int], counts: list[int]) -> list[float]:
    """The :data:`CANDIDATES`, first mover minus second mover."""
    out = [0.0] * len(CANDIDATES)
    pieces_left = sum(counts[7 + s * k] for s in (1, -1) for k in (CHARIOT, HORSE, CANNON))
    for sign in (1, -1):
        missing_a = 2 - counts[7 + sign * ADVISOR]
        missing_e = 2 - counts[7 + sign * ELEPHANT]
        # A defender's weakness counts against it: the attacker's gain, hence -sign.
        for i, kind in enumerate((CHARIOT, HORSE, CANNON)):
            out[i] -= sign * missing_a * counts[7 - sign * kind]
            out[3 + i] -= sign * missing_e * counts[7 - sign * kind]
        out[6] += sign * counts[7 + sign * HORSE] * pieces_left / 12
        out[7] += sign * counts[7 + sign * CANNON] * pieces_left / 12
    kings = {1: -1, -1: -1}
    for point, piece in enumerate(squares):
        if abs(piece) == KING:
            kings[1 if piece > 0 else -1] = point
    for point, piece in enumerate(squares):
        kind = abs(piece)
        if kind not in (CANNON, CHARIOT):
            continue
        sign = 1 if piece > 0 else -1
        king = kings[-sign]
        file = point % 9
        if kind == CANNON and file == king % 9:
            step = 9 if king > point else -9
            between = sum(1 for p in range(point + step, king, step) if squares[p])
            if between == 0:
                out[8] += sign
            elif between == 1:
                out[9] += sign
        elif kind == CHARIOT and 3 <= file <= 5:
            step = 9 if sign > 0 else -9  # toward the enemy palace
            p, blocked = point + step, False
            while 0 <= p < NUM_POINTS and (p // 9 <= 9):
                if squares[p] and squares[p] * sign > 0:
                    blocked = True
                    break
                if squares[p]:
                    break
                p += step
            if not blocked and ((sign > 0 and point // 9 >= 3) or (sign < 0 and point // 9 <= 6)):
                out[10] += sign
    return out


# The nine points of each side's palace (first mover's at the bottom).
PALACE_POINTS = tuple(
    frozenset(rank * 9 + file for rank in ranks for file in (3, 4, 5))
    for ranks in ((0, 1, 2), (7, 8, 9))
)


def palace_units(
    squares: list[int], rays: Sequence[Sequence[Sequence[int]]], janggi: bool
) -> tuple[int, int]:
    """Points of the enemy palace (files d-f, its three ranks) each side's chariots, horses and
    cannons attack, counted once per attacker (first mover's, second mover's). A cannon
    attacks past exactly one screen (janggi: not a cannon, and it takes no cannon)."""
    units = [0, 0]
    for point, piece in enumerate(squares):
        kind = abs(piece)
        if kind not in (CHARIOT, HORSE, CANNON):
            continue
        side = 0 if piece > 0 else 1
        palace = PALACE_POINTS[1 - side]
        n = 0
        if kind == HORSE:
            n = sum(1 for to, leg in HORSE_MOVES[point] if not squares[leg] and to in palace)
        else:
            for ray in rays[point]:
                screened = False
                for to in ray:
                    x = squares[to]
                    if kind == CHARIOT:
                        n += to in palace
                        if x:
                            break
                    elif not screened:
                        if x:
                            if janggi and abs(x) == CANNON:
                                break
                            screened = True
                    else:
                        if janggi and abs(x) == CANNON:
                            break
                        n += to in palace
                        if x:
                            break
        units[side] += n
    return units[0], units[1]


def check_threats(
    squares: list[int], rays: Sequence[Sequence[Sequence[int]]], king: int, white: bool
) -> int:
    """How many moves of the first mover's (``white``) or the second mover's chariots and
    horses would give check to the enemy general on ``king``: the danger a general stands in
    before any check is on the board. A chariot threatens from any point it can reach on one of
    the general's open lines (``rays``: janggi's include the palace diagonals), a horse from any
    point it can reach whose step onto the general is not blocked."""
    lines = [False] * NUM_POINTS
    for ray in rays[king]:
        for to in ray:
            lines[to] = True
            if squares[to]:
                break
    spots = [False] * NUM_POINTS
    for src, leg in HORSE_ATTACKERS[king]:
        if not squares[leg]:
            spots[src] = True
    sign = 1 if white else -1
    threats = 0
    for point, piece in enumerate(squares):
        if piece * sign == CHARIOT:
            for ray in rays[point]:
                for to in ray:
                    x = squares[to]
                    if x:
                        threats += lines[to] and x * sign < 0
                        break
                    threats += lines[to]
        elif piece * sign == HORSE:
            threats += sum(
                1
                for to, leg in HORSE_MOVES[point]
                if spots[to] and not squares[leg] and squares[to] * sign <= 0
            )
    return threats


def palace_terms(squares: list[int], counts: list[int], spec: Spec) -> list[float]:
    """The :data:`PALACE_CANDIDATES`, first mover minus second mover."""
    red, black = palace_units(squares, spec.rays, spec.name == "janggi")
    missing_red = 2 - counts[7 + ADVISOR]
    missing_black = 2 - counts[7 - ADVISOR]
    red_king, black_king = squares.index(KING), squares.index(-KING)
    red_threats = check_threats(squares, spec.rays, black_king, True)
    black_threats = check_threats(squares, spec.rays, red_king, False)
    return [
        red - black,
        (red * red - black * black) / 10,
        red * missing_black - black * missing_red,
        red_threats - black_threats,
        (red_threats**2 - black_threats**2) / 10,
        red_threats * missing_black - black_threats * missing_red,
    ]


def engine_score(squares: list[int], spec: Spec = SPECS["xiangqi"]) -> int:
    """The score the search gives a quiet leaf, first mover's view (the check on Features)."""
    return spec.evaluator.full(squares) + mobility(
        squares, spec.rays, cannon_weight=spec.evaluator.cannon_mobility
    )


class Data:
    """Positions as a sparse matrix (``rows``, ``cols``, ``vals``), results and game numbers."""

    def __init__(self, path: Path, features: Features, limit: int | None) -> None:
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        results: list[float] = []
        games: list[int] = []
        self.checked = 0
        spec = features.spec
        board = make_board(spec.name)
        with gzip.open(path, "rt") as lines:
            for line in lines:
                if line.startswith("#"):
                    continue
                fen, result, game = line.rstrip("\n").split("\t")
                board.set_fen(fen)
                squares = list(board.squares)
                counts = [0] * 15
                for piece in squares:
                    counts[piece + 7] += 1
                if spec.evaluator.endings and (cannot_win(counts, 0) or cannot_win(counts, 1)):
                    continue  # the drawn-ending scaling is not linear: leave those out
                i = len(results)
                x = features.of(squares)
                if i % 997 == 0:  # the features reproduce the engine's own score
                    theta = features.current()
                    mine = sum(theta[j] * v for j, v in x.items())
                    if abs(mine - engine_score(squares, spec)) > 1e-6:
                        raise SystemExit(f"features disagree with the engine at {fen}")
                    self.checked += 1
                for j, v in x.items():
                    rows.append(i)
                    cols.append(j)
                    vals.append(v)
                results.append(float(result))
                games.append(int(game))
                if limit and len(results) >= limit:
                    break
        self.rows = np.array(rows, dtype=np.int64)
        self.cols = np.array(cols, dtype=np.int64)
        self.vals = np.array(vals, dtype=np.float64)
        self.results = np.array(results)
        self.games = np.array(games)
        self.n = len(results)
        self.size = features.size

    def subset(self, keep: np.ndarray) -> Data:
        """The positions where ``keep`` is true, renumbered."""
        part = object.__new__(Data)
        new_index = np.cumsum(keep) - 1
        mask = keep[self.rows]
        part.rows = new_index[self.rows[mask]]
        part.cols = self.cols[mask]
        part.vals = self.vals[mask]
        part.results = self.results[keep]
        part.games = self.games[keep]
        part.n = int(keep.sum())
        part.size = self.size
        part.checked = 0
        return part

    def scores(self, theta: np.ndarray) -> np.ndarray:
        return np.bincount(self.rows, weights=self.vals * theta[self.cols], minlength=self.n)

    def loss(self, theta: np.ndarray, k: float) -> float:
        p = 1.0 / (1.0 + np.exp(-k * self.scores(theta)))
        return float(np.mean((p - self.results) ** 2))

    def gradient(self, theta: np.ndarray, k: float) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-k * self.scores(theta)))
        r = 2.0 * (p - self.results) * p * (1.0 - p) * k / self.n
        return np.bincount(self.cols, weights=self.vals * r[self.rows], minlength=self.size)

    def usage(self) -> np.ndarray:
        """How many positions use each weight (a rarely seen square is held near its value)."""
        return np.bincount(self.cols, minlength=self.size)


def fit_k(data: Data, theta: np.ndarray) -> float:
    """The scale ``K`` (per centipawn) that best fits the current evaluation: a golden search."""
    lo, hi = 1e-4, 2e-2
    for _ in range(60):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if data.loss(theta, a) < data.loss(theta, b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def tune(
    data: Data,
    start: np.ndarray,
    k: float,
    steps: int,
    pull: float,
    rate: float,
    frozen: np.ndarray,
    report: int = 250,
    free: np.ndarray | None = None,
) -> np.ndarray:
    """Adam on the loss plus ``pull`` x the mean squared step away from ``start`` (but for the
    weights where ``free`` is true); the weights where ``frozen`` is true stay as they are."""
    theta = start.copy()
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    pulled = np.ones_like(theta) if free is None else (~free).astype(float)
    for t in range(1, steps + 1):
        g = data.gradient(theta, k) + 2.0 * pull * pulled * (theta - start) / len(theta)
        g[frozen] = 0.0
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        step = rate * (1.0 - 0.9 * t / steps)  # smaller steps toward the end, to settle
        theta -= step * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-12)
        if report and t % report == 0:
            print(f"  step {t}: fitting loss {data.loss(theta, k):.6f}", flush=True)
    return theta


# ---------------------------------------------------------------- writing evaluation.py


def tuned_weights(
    features: Features, theta: np.ndarray, data: Data, values: dict[int, int] | None = None
) -> tuple[dict[str, object], str]:
    """The tuned weights as written: the piece values and per-point bonuses (the variant's
    entry of ``tuned.json``) and the block of evaluation.py with the weights the search reads
    per node. ``values`` (by kind) replaces the means as the values (to write the weights as
    they are)."""
    spec = features.spec
    usage = data.usage()
    totals = features.totals(theta)
    if values is None:
        values = {}
        for kind in KINDS:
            js = [features.index[(kind, f, r)] for f, r in spec.points[kind]]
            weights = usage[js].astype(float) + 1e-9
            mean = np.average([totals[j] for j in js], weights=weights)
            values[kind] = 0 if kind == KING else round(float(mean))
    bonus: dict[str, list[list[int]]] = {}
    for kind in KINDS:
        rows = bonus[KIND_NAMES[kind].lower()] = []
        for rank in range(max(r for _, r in spec.points[kind]) + 1):
            row = []
            for file in range(5):
                j = features.index.get((kind, file, rank))
                row.append(0 if j is None else round(float(totals[j])) - values[kind])
            rows.append(row)
    tables = {"values": {KIND_NAMES[kind].lower(): values[kind] for kind in KINDS}, "bonus": bonus}
    lines = [spec.begin]
    if spec.name == "janggi":
        lines.append("# Han's 1.5 points (J8), in centipawns, that the first mover's score starts")
        lines.append("# behind by.")
    else:
        lines.append(
            "# Centipawns per point a chariot, horse, cannon can move to (``mobility``), and"
        )
        lines.append("# per missing defender and attacker unit (``general_safety``).")
    for name, const in spec.constants.items():
        lines.append(f"{const}: Final = {round(float(theta[features.extra[name]]))}")
    if spec.name == "xiangqi":
        lines.append(
            "# More than the mobility balance of any ordinary position (99.9 % of the games'"
        )
        lines.append("# positions): see ``Searcher._leaf_score``.")
        lines.append(f"MOBILITY_MARGIN: Final = {mobility_margin(features, theta, data)}")
    lines.append(spec.end)
    return tables, "\n".join(lines)


def mobility_margin(features: Features, theta: np.ndarray, data: Data) -> int:
    """The lazy-evaluation margin: 99.9 % of positions' mobility balances lie within it."""
    only = np.zeros_like(theta)
    for name in ("chariot mobility", "horse mobility", "cannon mobility"):
        only[features.extra[name]] = theta[features.extra[name]]
    balance = np.abs(data.scores(only))
    return max(120, int(math.ceil(np.percentile(balance, 99.9) / 10) * 10))


def tuned_json(tuned: dict[str, dict[str, object]]) -> str:
    """``tuned.json``'s text: a bonus table's rows one a line, aligned, as a reader scans them."""
    out = ["{"]
    for i, (variant, weights) in enumerate(tuned.items()):
        if "bonus" not in weights:  # jieqi's face-down bonuses (bench/jieqi_tune.py): one line
            out.append(
                f'  "{variant}": {json.dumps(weights)}' + ("," if i < len(tuned) - 1 else "")
            )
            continue
        bonus: dict[str, list[list[int]]] = weights["bonus"]  # type: ignore[assignment]
        kinds = [
            f'      "{kind}": [\n'
            + ",\n".join("        [" + ", ".join(f"{b:4d}" for b in row) + "]" for row in rows)
            + "\n      ]"
            for kind, rows in bonus.items()
        ]
        out.append(
            f'  "{variant}": {{\n    "values": {json.dumps(weights["values"])},\n'
            '    "bonus": {\n'
            + ",\n".join(kinds)
            + "\n    }\n  }"
            + ("," if i < len(tuned) - 1 else "")
        )
    return "\n".join(out) + "\n}\n"


def write_evaluation(tables: dict[str, object], block: str, spec: Spec = SPECS["xiangqi"]) -> None:
    tuned = json.loads(TUNED.read_text())
    tuned[spec.name] = tables
    TUNED.write_text(tuned_json(tuned))
    text = EVALUATION.read_text()
    pattern = re.compile(re.escape(spec.begin) + ".*?" + re.escape(spec.end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{EVALUATION} has no tuned block ({spec.begin!r})")
    EVALUATION.write_text(pattern.sub(lambda _: block, text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=list(SPECS), default="xiangqi")
    parser.add_argument(
        "--data", type=Path, default=None, help="default: bench/data/<variant>_positions.txt.gz"
    )
    parser.add_argument("--limit", type=int, default=None, help="read only N positions")
    parser.add_argument("--holdout", type=int, default=5, help="1 game in N is held out")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--rate", type=float, default=2.0, help="Adam step, centipawns")
    parser.add_argument(
        "--pull",
        type=float,
        default=None,
        help="L2 pull toward the current weights (xiangqi 2e-6, janggi 2e-4)",
    )
    parser.add_argument(
        "--write", action="store_true", help="write engine/tuned.json and evaluation.py"
    )
    parser.add_argument(
        "--candidates", action="store_true", help="also fit the CANDIDATES terms (never written)"
    )
    parser.add_argument(
        "--freeze-shared",
        action="store_true",
        help="keep the weights janggi and jieqi share as they are",
    )
    args = parser.parse_args(argv)

    started = time.monotonic()
    spec = SPECS[args.variant]
    features = Features(args.candidates, spec)
    data = Data(args.data or spec.data, features, args.limit)
    held = data.games % args.holdout == 0
    fitting, holdout = data.subset(~held), data.subset(held)
    print(
        f"{data.n} quiet positions ({fitting.n} fitting, {holdout.n} held out, games "
        f"{len(np.unique(data.games))}), {features.size} weights; features checked against "
        f"the engine's score at {data.checked} positions; read in "
        f"{time.monotonic() - started:.0f} s"
    )
    start = features.current()
    k = fit_k(fitting, start)
    print(f"K = {k:.6f} per centipawn (a 100-point lead: {1 / (1 + math.exp(-100 * k)):.3f})")
    before_fit, before_held = fitting.loss(start, k), holdout.loss(start, k)
    frozen = np.zeros(features.size, dtype=bool)
    if args.freeze_shared or spec.name != "xiangqi":  # xiangqi's run owns the shared weights
        frozen[[features.extra[name] for name in spec.shared]] = True
    free = np.zeros(features.size, dtype=bool)
    free[list(features.material.values())] = True
    pull = spec.pull if args.pull is None else args.pull
    theta = tune(fitting, start, k, args.steps, pull, args.rate, frozen, free=free)
    final = np.round(theta)  # the weights as they will be written: what plays
    after_fit, after_held = fitting.loss(final, k), holdout.loss(final, k)
    print(
        f"fitting loss  before {before_fit:.6f}  after {after_fit:.6f}  "
        f"ratio {after_fit / before_fit:.4f}"
    )
    print(
        f"held-out loss before {before_held:.6f}  after {after_held:.6f}  "
        f"ratio {after_held / before_held:.4f}  (anchor: the current evaluation)"
    )
    for name, j in features.extra.items():
        print(f"  {name}: {start[j]:.0f} -> {final[j]:.0f}")
    for kind, j in features.material.items():
        print(f"  material {KIND_NAMES[kind].lower()}: {start[j]:.0f} -> {final[j]:.0f}")
    tables, block = tuned_weights(features, final, data)
    if args.write and args.candidates:
        raise SystemExit("--candidates is for measuring: the evaluation has no such terms")
    if args.write:
        write_evaluation(tables, block, spec)
        print(f"wrote {TUNED} and {EVALUATION}")
    else:
        print(tuned_json({spec.name: tables}))
        print(block)
    print(f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
