"""A rating farm against a real server (SPEC Z8, B2): how far fresh cookies losing on purpose
lift one booster, in 10 s and, projected, in an hour.

Starts ``chuhan serve`` (SQLite, one AI worker) trusting this process's ``X-Forwarded-For``
(as behind nginx) and, for ``--seconds`` each, runs two farms (``tests/farm_client.py``: real
seek and room sockets, one paired game after another, the cookie resigning after one move
each):

- ``one address``: the booster and every cookie on 203.0.113.7 (one attacker);
- ``many addresses``: every cookie on an address of its own (a botnet, a VPN's exits).

Printed per farm: games played, rated games, the booster's rating after 10 s and at the end,
and the hour projected: a + b·ln(t) fitted to the run's second half (a farm's gains slow as
Glicko-2's do; one whose gains stopped projects no more), read at 3,600 s.

``--baseline COMMIT`` first runs the same farms against that commit's server (a git worktree
of it, pure Python): the "before" beside the "after" in one run. The seek budget per address
is off for both (``CHUHAN_SEEKS_PER_ADDRESS=0``: the rating rules alone are measured), and the
cookies count as practised (``--ai-games-first 0``: the attacker paid the AI games that
``RatingRules.ai_games_first`` asks; with the default 3 no fresh cookie is rated at all).

    .venv/bin/python bench/rating_farm.py --seconds 20 --baseline 13d3f03

Measured figures: bench/RESULTS.md, under "bench/rating_farm.py".
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from farm_client import Identity, lose_on_purpose  # noqa: E402
from rooms_client import ServerProcess, server_environment  # noqa: E402

HOUR = 3600.0
EARLY = 10.0  # the "after 10 s"


@dataclass
class FarmRun:
    """One farm's course: (seconds since start, booster's rating) after each game."""

    name: str
    points: list[tuple[float, int]] = field(default_factory=list)
    games: int = 0
    rated: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def at(self, seconds: float) -> int:
        reached = [rating for at, rating in self.points if at <= seconds]
        return reached[-1] if reached else 1500

    def projected_hour(self, seconds: float) -> float:
        """The rating after an hour of the same farm: a + b·ln(t) fitted (least squares) to
        the run's second half, where a farm's gains slow as Glicko-2's do; a farm whose gains
        stopped projects none (b at least 0)."""
        late = [(math.log(at), rating) for at, rating in self.points if at >= seconds / 2]
        if len(late) < 2:
            return float(self.at(seconds))
        mean_x = sum(x for x, _ in late) / len(late)
        mean_y = sum(y for _, y in late) / len(late)
        spread = sum((x - mean_x) ** 2 for x, _ in late)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in late) / spread if spread else 0.0
        return mean_y + max(slope, 0.0) * (math.log(HOUR) - mean_x)


def farm(url: str, name: str, seconds: float, own_addresses: bool, strict: bool) -> FarmRun:
    run = FarmRun(name)
    home = "203.0.113.7"
    booster = Identity(url, home if not own_addresses else "198.51.100.1", strict)
    numbers = itertools.count(1)
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        number = next(numbers)
        address = f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"
        cookie = Identity(url, address if own_addresses else home, strict)
        event = lose_on_purpose(booster, cookie)
        cookie.close()
        run.games += 1
        if event["counted"]:
            run.rated += 1
        else:
            reason = str(event.get("reason"))
            run.reasons[reason] = run.reasons.get(reason, 0) + 1
        run.points.append((time.monotonic() - start, int(event[event["booster"]]["after"])))
    booster.close()
    return run


@contextlib.contextmanager
def server(src: Path | None, ai_games_first: int) -> Iterator[str]:
    overrides = {
        "CHUHAN_AI_WORKERS": "1",
        "CHUHAN_TRUSTED_PROXIES": "127.0.0.1",
        "CHUHAN_SEEKS_PER_ADDRESS": "0",
        "CHUHAN_NEW_PLAYERS_PER_ADDRESS": "100000",
        "CHUHAN_RATED_AFTER_AI_GAMES": str(ai_games_first),
    }
    if src is not None:
        overrides.update(PYTHONPATH=str(src), CHUHAN_PURE_PYTHON="1")
    with tempfile.TemporaryDirectory(prefix="rating-farm-") as data:
        process = ServerProcess(Path(data), server_environment(**overrides))
        with process.running() as url:
            yield url


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """A git worktree of ``commit`` (its ``src``), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="rating-farm-base-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), commit],
        check=True,
        capture_output=True,
    )
    try:
        yield folder / "src"
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
            check=False,
            capture_output=True,
        )


def report(label: str, runs: list[FarmRun], seconds: float) -> None:
    for run in runs:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(run.reasons.items())) or "none"
        print(
            f"{label:>9} | {run.name:<14} | games {run.games:4d} | rated {run.rated:4d} "
            f"| after {EARLY:.0f} s {run.at(EARLY):5d} | after {seconds:.0f} s "
            f"{run.at(seconds):5d} | projected hour {run.projected_hour(seconds):7.0f} "
            f"| not rated: {reasons}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--baseline", help="a commit to run first: the figures before")
    parser.add_argument("--ai-games-first", type=int, default=0)
    args = parser.parse_args()
    if args.seconds < EARLY:
        parser.error(f"--seconds must be at least {EARLY:.0f}")

    def both(url: str, strict: bool = True) -> list[FarmRun]:
        return [
            farm(url, "one address", args.seconds, own_addresses=False, strict=strict),
            farm(url, "many addresses", args.seconds, own_addresses=True, strict=strict),
        ]

    results: list[tuple[str, list[FarmRun]]] = []
    if args.baseline:
        with checkout(args.baseline) as src, server(src, args.ai_games_first) as url:
            results.append((args.baseline[:9], both(url, strict=False)))
    with server(None, args.ai_games_first) as url:
        results.append(("this", both(url)))
    print(f"booster's rating (1500 at the start), {args.seconds:.0f} s per farm:")
    for label, runs in results:
        report(label, runs, args.seconds)


if __name__ == "__main__":
    main()
