"""Texel tuning of jieqi's piece values and of what a face-down piece is worth by the point it
stands on (A1), on the self-play positions of ``bench/jieqi_games.py``
(``bench/data/jieqi_positions.txt.gz``).

    .venv/bin/python bench/jieqi_tune.py               # fit, print the held-out loss before/after
    .venv/bin/python bench/jieqi_tune.py --write       # ... and write engine/tuned.json's jieqi
    .venv/bin/python bench/jieqi_tune.py --candidates  # also fit terms the search lacks

A face-down piece moves as the piece whose starting point it stands on (Q3) and is one of its
side's unknown pool, so the search values it at the pool's average plus a bonus for its point's
kind (``HIDDEN_BONUS`` of ``engine/jieqi.py``): a chariot-point piece can turn up far away, an
advisor-point piece hardly moves, a soldier-point piece stands in the line of fire. Each
position is scored as the search scores a leaf, from the view of the side to move there
(piece-square tables, face-down pieces at the pool's average, the mobility balance), and the
weights are those of a logistic fit of the game's result on that score (Texel's method, as
``bench/tune.py``): six point bonuses, and with ``--values`` the six values of the kinds too
(``JIEQI_VALUES``: a face-up piece counts its value, a face-down one the chance it is each kind
times that kind's value). ``K`` is fitted to the evaluation without bonuses and with the values
as they are (the anchor), then held, so the held-out loss after / before compares the
evaluations on one scale; lower is better. Games, not positions, are split into the fitting and
held-out sets (every ``--holdout``-th game is held out).

What plays is what won at the board, not the lowest loss: the bonuses alone (held-out ratio
0.9808) scored 55 % over 400 games against the evaluation without them (``bench/strength.py
--versus-nodes 6000``); values and bonuses fitted together without a pull (``--values --pull
0``: ratio 0.9511; elephant 160, chariot 1036, cannon 402, the bonuses twice as large) scored
52.5 % over 262, so the values stay the hand-set ones.

``--candidates`` adds terms the evaluation does not have and prints their weights: a face-down
piece attacked by the opponent (it can be taken, and the taker learns what it was, Q5), the
same when nothing defends it, and a face-down piece of the side to move that is attacked (the
exposure it must answer now). The measurement to make before a term goes into the search.

It needs numpy, which the game does not: ``.venv/bin/pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

from chuhan.engine.evaluation import mobility
from chuhan.engine.jieqi import (
    HIDDEN_BONUS,
    JIEQI_EVALUATOR,
    JIEQI_VALUES,
    JieqiSearcher,
)
from chuhan.engine.search import Limits
from chuhan.rules.geometry import ADVISOR, CANNON, CHARIOT, ELEPHANT, HORSE, SOLDIER
from chuhan.rules.jieqi import JieqiBoard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune import TUNED, fit_k, tune, tuned_json

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "jieqi_positions.txt.gz"
ROLES = (ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER)
ROLE_NAMES = {
    ADVISOR: "ADVISOR",
    ELEPHANT: "ELEPHANT",
    HORSE: "HORSE",
    CHARIOT: "CHARIOT",
    CANNON: "CANNON",
    SOLDIER: "SOLDIER",
}
CANDIDATES = ("hidden attacked", "hidden attacked, undefended", "mover's hidden attacked")


def position(fen: str, pools: tuple[str, str]) -> JieqiBoard:
    """The board the side to move knew: ``fen`` and each side's unknown pool (kinds 1-7)."""
    board = JieqiBoard._secretless(fen, None)
    board.pool = [[0] + [int(n) for n in pool.split(",")] for pool in pools]
    return board


def features(board: JieqiBoard, candidates: bool) -> tuple[float, list[float]]:
    """(the leaf score without point bonuses and without material, the terms to weigh: the
    point bonuses, the material of each kind, the candidates), all Red's. A kind's material
    term counts its face-up pieces and, for each face-down piece, the chance it is one."""
    searcher = JieqiSearcher(board, Limits())
    searcher.hidden_table = searcher.hidden_values({})  # no bonuses: the anchor
    base = float(searcher.initial_score()) + mobility(
        board.squares, board.SLIDER_RAYS, JIEQI_EVALUATOR.cannon_mobility
    )
    terms = [0.0] * (2 * len(ROLES) + (len(CANDIDATES) if candidates else 0))
    for side, sign in ((0, 1), (1, -1)):
        pool = board.unknown_pool(side)
        hidden = sum(1 for p in board.face_down if (board.squares[p] > 0) == (side == 0))
        total = sum(pool.values())
        for kind, count in pool.items():
            share = sign * hidden * count / total
            terms[len(ROLES) + ROLES.index(kind)] += share
            base -= share * JIEQI_VALUES[kind]
    for point, piece in enumerate(board.squares):
        if piece and abs(piece) in ROLES and point not in board.face_down:
            sign = 1 if piece > 0 else -1
            terms[len(ROLES) + ROLES.index(abs(piece))] += sign
            base -= sign * JIEQI_VALUES[abs(piece)]
    for point in board.face_down:
        piece = board.squares[point]
        side = 0 if piece > 0 else 1
        sign = 1 if side == 0 else -1
        terms[ROLES.index(abs(piece))] += sign
        if candidates and board.attacked(point, 1 - side):
            at = 2 * len(ROLES)
            terms[at] += sign
            if not board.attacked(point, side):
                terms[at + 1] += sign
            if side == board.turn:
                terms[at + 2] += sign
    return float(base), terms


class Data:
    def __init__(self, path: Path, candidates: bool, holdout: int) -> None:
        base, rows, results, games = [], [], [], []
        with gzip.open(path, "rt") as lines:
            for line in lines:
                if line.startswith("#"):
                    continue
                fen, red, black, result, game = line.rstrip("\n").split("\t")
                score, terms = features(position(fen, (red, black)), candidates)
                base.append(score)
                rows.append(terms)
                results.append(float(result))
                games.append(int(game))
        self.base = np.array(base)
        self.x = np.array(rows)
        self.r = np.array(results)
        self.held = np.array(games) % holdout == 0

    def part(self, held: bool) -> Part:
        keep = self.held if held else ~self.held
        return Part(self.base[keep], self.x[keep], self.r[keep])


class Part:
    """Positions as dense rows: the loss and its gradient that ``tune.fit_k`` and
    ``tune.tune`` (Adam, the pull toward the start) work on, as for the sparse xiangqi data."""

    def __init__(self, base: np.ndarray, x: np.ndarray, r: np.ndarray) -> None:
        self.base, self.x, self.r = base, x, r

    def _p(self, w: np.ndarray, k: float) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-k * (self.base + self.x @ w)))

    def loss(self, w: np.ndarray, k: float) -> float:
        return float(np.mean((self._p(w, k) - self.r) ** 2))

    def gradient(self, w: np.ndarray, k: float) -> np.ndarray:
        p = self._p(w, k)
        return (2.0 * (p - self.r) * p * (1 - p) * k) @ self.x / len(self.r)


def write_weights(values: dict[int, int], bonus: dict[int, int]) -> None:
    """Rewrite ``tuned.json``'s jieqi entry (the other variants' stay as they are)."""
    tuned = json.loads(TUNED.read_text())
    tuned["jieqi"] = {
        "values": {ROLE_NAMES[kind].lower(): values[kind] for kind in ROLES},
        "hidden": {ROLE_NAMES[kind].lower(): bonus[kind] for kind in ROLES},
    }
    TUNED.write_text(tuned_json(tuned))
    print(f"wrote {TUNED}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--holdout", type=int, default=5, help="hold out every n-th game")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument(
        "--pull",
        type=float,
        default=2e-6,
        help="L2 pull toward the anchor (--values: 0 fitted the held-out best)",
    )
    parser.add_argument(
        "--values",
        action="store_true",
        help="also fit each kind's value (JIEQI_VALUES); held otherwise",
    )
    parser.add_argument("--candidates", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)

    started = time.monotonic()
    data = Data(args.data, args.candidates, args.holdout)
    fitting, held = data.part(False), data.part(True)
    n = len(ROLES)
    anchor = np.zeros(data.x.shape[1])  # no bonuses, the values as they are
    anchor[n : 2 * n] = [JIEQI_VALUES[kind] for kind in ROLES]
    k = fit_k(fitting, anchor)  # type: ignore[arg-type]
    print(
        f"{len(data.r)} positions ({int(data.held.sum())} held out), K {k:.5f}, "
        f"read in {time.monotonic() - started:.0f} s"
    )
    frozen = np.zeros(len(anchor), dtype=bool)
    if not args.values:
        frozen[n : 2 * n] = True
    w = np.round(
        tune(
            fitting,
            anchor,
            k,
            args.steps,
            args.pull,
            args.rate,
            frozen,  # type: ignore[arg-type]
            report=0,
        )
    )
    current = anchor.copy()
    current[:n] = [HIDDEN_BONUS[kind] for kind in ROLES]
    before, after, now = held.loss(anchor, k), held.loss(w, k), held.loss(current, k)
    names = (
        [ROLE_NAMES[kind].lower() + " point" for kind in ROLES]
        + [ROLE_NAMES[kind].lower() for kind in ROLES]
        + (list(CANDIDATES) if args.candidates else [])
    )
    print(
        "weights (centipawns): " + ", ".join(f"{n} {v:+.0f}" for n, v in zip(names, w, strict=True))
    )
    print(
        f"held-out loss: no bonuses {before:.6f}, fitted {after:.6f} "
        f"(ratio {after / before:.4f}), engine's HIDDEN_BONUS now {now:.6f} "
        f"(ratio {now / before:.4f})"
    )
    if args.write:
        if args.candidates:
            raise SystemExit("--write writes the point bonuses only: run it without --candidates")
        write_weights(
            {kind: int(v) for kind, v in zip(ROLES, w[n : 2 * n], strict=True)},
            {kind: int(v) for kind, v in zip(ROLES, w[:n], strict=True)},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
